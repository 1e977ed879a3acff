import { isJsonObject, publicJwkOf, samePublicKey } from "@attesto/protocol";
import { type CheckOutcome, failed } from "../checks/check.js";
import type { IssuerDocumentFetcher, LedgerDidResolver } from "../ports.js";
import { IssuerFetchError } from "../upstream.js";
import { didAssertionKey, didOf } from "./did-issuer-key.js";
import type { KeyLookup } from "./key-lookup.js";

/**
 * Where an issuer identifier's JWT VC Issuer Metadata lives (SD-JWT VC draft: the well-known
 * segment between host and path): `https://host/acme` -> `https://host/.well-known/jwt-vc-issuer/acme`.
 */
export function jwtVcIssuerMetadataUrl(iss: string): string {
  const url = new URL(iss);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  return `${url.origin}/.well-known/jwt-vc-issuer${path}`;
}

/** A JSON object fetched from the issuer, or why there is none. */
async function fetchDocument(
  fetcher: IssuerDocumentFetcher,
  url: string,
  what: string,
  refresh: boolean,
): Promise<{ document: Record<string, unknown> } | { outcome: CheckOutcome }> {
  let document: unknown;
  try {
    document = await fetcher.fetchJson(url, { refresh });
  } catch (error) {
    if (error instanceof IssuerFetchError) {
      return { outcome: failed("issuer_metadata_unavailable", `the issuer's ${what} could not be fetched`) };
    }
    throw error;
  }
  if (!isJsonObject(document)) {
    return { outcome: failed("issuer_metadata_invalid", `the issuer's ${what} is not a JSON object`) };
  }
  return { document };
}

/**
 * When a metadata key's `kid` is a DID URL whose DID holds the same key as an assertionMethod, the
 * issuer is that DID too (Attesto's DID path publishes its did:ledger keys this way).
 */
async function didOfMetadataKey(ledger: LedgerDidResolver, key: Record<string, unknown>): Promise<string | undefined> {
  const kid = typeof key.kid === "string" ? key.kid : undefined;
  if (!kid?.startsWith("did:")) return undefined;
  const did = didOf(kid);
  const resolved = await didAssertionKey(ledger, did, kid);
  if (!("jwk" in resolved)) return undefined;
  const [held, published] = [publicJwkOf(resolved.jwk), publicJwkOf(key)];
  return held && published && samePublicKey(held, published) ? did : undefined;
}

/**
 * An http(s) `iss` without `x5c`: the key comes from the issuer's JWT VC Issuer Metadata
 * (`jwks`, or the JWKS at `jwks_uri`), whose `issuer` must be exactly `iss`; the key is the one
 * with the header's `kid` (without a `kid`, the only key of the set). A `kid` missing from cached
 * documents is looked for once more in fresh ones (the issuer may have published a key since).
 */
export async function issuerKeyOfJwtVcIssuer(
  ports: { issuerDocuments: IssuerDocumentFetcher; ledger: LedgerDidResolver },
  iss: string,
  kid: string | undefined,
): Promise<KeyLookup> {
  const cached = await metadataKey(ports, iss, kid, false);
  if (!("outcome" in cached) || cached.outcome.reasonCode !== "issuer_key_not_found") return cached;
  return metadataKey(ports, iss, kid, true);
}

async function metadataKey(
  ports: { issuerDocuments: IssuerDocumentFetcher; ledger: LedgerDidResolver },
  iss: string,
  kid: string | undefined,
  refresh: boolean,
): Promise<KeyLookup> {
  const fetched = await fetchDocument(
    ports.issuerDocuments,
    jwtVcIssuerMetadataUrl(iss),
    "JWT VC Issuer Metadata",
    refresh,
  );
  if ("outcome" in fetched) return fetched;
  const metadata = fetched.document;
  if (metadata.issuer !== iss) {
    return {
      outcome: failed("issuer_metadata_mismatch", "the issuer's JWT VC Issuer Metadata names another issuer than iss"),
    };
  }
  let jwks: Record<string, unknown> | undefined;
  if (isJsonObject(metadata.jwks)) jwks = metadata.jwks;
  else if (typeof metadata.jwks_uri === "string") {
    let jwksUri: URL;
    try {
      jwksUri = new URL(metadata.jwks_uri);
    } catch {
      return { outcome: failed("issuer_metadata_invalid", "the issuer's jwks_uri is not an absolute URL") };
    }
    const fetchedJwks = await fetchDocument(ports.issuerDocuments, jwksUri.href, "JWKS", refresh);
    if ("outcome" in fetchedJwks) return fetchedJwks;
    jwks = fetchedJwks.document;
  }
  if (!jwks || !Array.isArray(jwks.keys)) {
    return {
      outcome: failed("issuer_metadata_invalid", "the issuer's JWT VC Issuer Metadata has no jwks or jwks_uri"),
    };
  }
  const keys = jwks.keys.filter(isJsonObject);
  const key = kid === undefined ? (keys.length === 1 ? keys[0] : undefined) : keys.find((k) => k.kid === kid);
  if (!key) {
    return { outcome: failed("issuer_key_not_found", "the issuer's JWT VC Issuer Metadata has no key for the kid") };
  }
  const did = await didOfMetadataKey(ports.ledger, key);
  return { jwk: key, binding: "jwt_vc_issuer_metadata", ...(did ? { did } : {}) };
}
