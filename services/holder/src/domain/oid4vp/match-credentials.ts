import "reflect-metadata";
import { decodeCompactJwt, parseBase64DerCertificate } from "@attesto/protocol";
import { decodeIssuerSigned } from "@attesto/protocol/mdoc";
import * as x509 from "@peculiar/x509";
import { DcqlQuery } from "dcql";
import { isJsonObject, type JsonObject } from "../http/read-json.js";
import type { StoredCredential } from "../model.js";
import { withoutTrustedAuthorities } from "./resolve-authorization-request.js";

/** A stored credential that answers a credential query, and the claims the query asks of it. */
export interface CredentialMatch {
  credential: StoredCredential;
  queryId: string;
  /** The requested claims (all claims when the query names none). */
  claims: Record<string, unknown>;
}

/** The issuer's certificate chain of a credential: the SD-JWT's `x5c` header, an mdoc's `x5chain`. */
function certificateChainOf(credential: StoredCredential): string[] {
  if (credential.format === "mso_mdoc") {
    return decodeIssuerSigned(credential.raw).x5chain.map((der) => Buffer.from(der).toString("base64"));
  }
  const { header } = decodeCompactJwt(credential.raw.split("~")[0] ?? "", "x", "issuer JWT");
  return Array.isArray(header.x5c) ? (header.x5c as string[]) : [];
}

/** base64url AuthorityKeyIdentifiers of the x5c chain of a credential (DCQL `aki`). */
function authorityKeyIdsOf(credential: StoredCredential): string[] {
  try {
    return certificateChainOf(credential).flatMap((entry) => {
      const keyId = parseBase64DerCertificate(entry).getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
      return keyId ? [Buffer.from(keyId, "hex").toString("base64url")] : [];
    });
  } catch {
    return [];
  }
}

/** DCQL `trusted_authorities` (OID4VP 1.0 §6.1.1): `did` by the issuer DID, `aki` by the x5c chain; other types never match. */
function trustedBy(credential: StoredCredential, authorities: unknown): boolean {
  if (!Array.isArray(authorities)) return true;
  return authorities.some((authority) => {
    if (!isJsonObject(authority) || !Array.isArray(authority.values)) return false;
    const values = authority.values.filter((value): value is string => typeof value === "string");
    if (authority.type === "did") return values.some((value) => value.split("#")[0] === credential.issuerDid);
    if (authority.type === "aki") {
      const keyIds = authorityKeyIdsOf(credential);
      return values.some((value) => keyIds.includes(value));
    }
    return false;
  });
}

/**
 * Runs a verifier's DCQL query over the holder's credentials with the `dcql` library (format,
 * `meta.vct_values`, claims and claim sets; every stored credential is bound to a holder key),
 * then applies `trusted_authorities`. Returns, per credential query id, the credentials that answer it.
 */
export function matchCredentials(query: JsonObject, credentials: StoredCredential[]): Map<string, CredentialMatch[]> {
  const parsed = DcqlQuery.parse(withoutTrustedAuthorities(query) as DcqlQuery.Input);
  const result = DcqlQuery.query(
    parsed,
    credentials.map((credential) =>
      credential.format === "mso_mdoc"
        ? {
            // A stored mdoc: its docType (vct) and its elements by namespace (claims).
            credential_format: "mso_mdoc" as const,
            doctype: credential.vct,
            namespaces: credential.claims as never,
            cryptographic_holder_binding: true,
          }
        : {
            credential_format: credential.format as "dc+sd-jwt",
            vct: credential.vct,
            claims: credential.claims as never,
            cryptographic_holder_binding: true,
          },
    ),
  );
  const queries = new Map(
    (Array.isArray(query.credentials) ? query.credentials : []).filter(isJsonObject).map((q) => [q.id as string, q]),
  );
  const matches = new Map<string, CredentialMatch[]>();
  for (const [queryId, match] of Object.entries(result.credential_matches)) {
    const asked = queries.get(queryId);
    const found: CredentialMatch[] = [];
    for (const valid of match.success ? match.valid_credentials : []) {
      const credential = credentials[valid.input_credential_index]!;
      if (!trustedBy(credential, asked?.trusted_authorities)) continue;
      const claimSet = valid.claims.success ? valid.claims.valid_claim_sets[0] : undefined;
      const requested = asked?.claims === undefined ? credential.claims : (claimSet?.output as JsonObject | undefined);
      found.push({ credential, queryId, claims: requested ?? {} });
    }
    matches.set(queryId, found);
  }
  return matches;
}
