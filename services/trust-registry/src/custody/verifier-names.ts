import { isIP } from "node:net";
import { badRequest } from "@attesto/runtime/errors";
import type { LeafNames } from "./issuer-names.js";
import { subjectAltNamesOf } from "./issuer-names.js";
import { x509 } from "./x509.js";

/** Longest DNS name (RFC 1035). */
const MAX_HOST_LENGTH = 253;
const DNS_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The verifier's public host as the verifier names it: lowercase, no port, a DNS name or an IP
 * literal (an IP becomes an iPAddress SAN; such a verifier can use x509_hash but not x509_san_dns).
 */
export function parseVerifierHost(host: string): string {
  const value = typeof host === "string" ? host.trim().toLowerCase() : "";
  if (value.length === 0) throw badRequest("host is required (the verifier's public host)");
  if (value.length > MAX_HOST_LENGTH || (!isIP(value) && !DNS_NAME.test(value))) {
    throw badRequest("host must be a DNS name or an IP address without a port");
  }
  return value;
}

/**
 * What a platform-issued verifier leaf names: the verifier's public host as its only subjectAltName
 * (dNSName, or iPAddress for an IP literal), so `x509_san_dns:<host>` is the verifier and a wallet
 * can match the request's response_uri host against it.
 */
export const verifierLeafNames = (host: string): LeafNames => ({
  key: host,
  subjectAltName: () => new x509.SubjectAlternativeNameExtension([{ type: isIP(host) ? "ip" : "dns", value: host }]),
  carriedBy: (certificate) =>
    subjectAltNamesOf(certificate).some(
      (name) => (name.type === "dns" || name.type === "ip") && name.value.toLowerCase() === host,
    ),
});
