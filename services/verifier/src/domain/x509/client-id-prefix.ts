import { createHash } from "node:crypto";
import { parseBase64DerCertificate, subjectAltNamesOf } from "@attesto/protocol";
import { invalidFields } from "@attesto/runtime/errors";

/** OID4VP 1.0 §5.9.3 client identifier prefixes the verifier signs for with its tenant's certificate. */
export const CLIENT_ID_PREFIXES = ["x509_hash", "x509_san_dns"] as const;
export type ClientIdPrefix = (typeof CLIENT_ID_PREFIXES)[number];

/** `x509_hash:` value: base64url (no padding) SHA-256 of the leaf certificate's DER. */
export const x509HashOf = (leafBase64Der: string): string =>
  createHash("sha256").update(Buffer.from(leafBase64Der, "base64")).digest("base64url");

/**
 * The `client_id` of a session signed with the tenant's verifier certificate (`x5c`, leaf first):
 * `x509_hash:<hash of the leaf>`, or `x509_san_dns:<host>` where `host` is the verifier's public host,
 * which must be a dNSName subjectAltName of the leaf (the wallet matches the response_uri's host to
 * it, and the response_uri is on this host). A 400 names `client_id_prefix` when the leaf does not.
 */
export function x509ClientIdOf(prefix: ClientIdPrefix, x5c: readonly string[], verifierHost: string): string {
  const leaf = x5c[0];
  if (!leaf) throw new Error("the verifier certificate chain is empty");
  if (prefix === "x509_hash") return `x509_hash:${x509HashOf(leaf)}`;
  const { dnsNames } = subjectAltNamesOf(parseBase64DerCertificate(leaf));
  if (!dnsNames.some((name) => name.toLowerCase() === verifierHost)) {
    throw invalidFields([
      {
        field: "client_id_prefix",
        message: `x509_san_dns needs a verifier certificate with a DNS name equal to the verifier's public host (${verifierHost}); use x509_hash, or a certificate that names that host`,
      },
    ]);
  }
  return `x509_san_dns:${verifierHost}`;
}
