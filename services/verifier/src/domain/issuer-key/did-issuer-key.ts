import { isJsonObject, KeyFormatError, publicJwkFromDidKey } from "@attesto/protocol";
import { failed } from "../checks/check.js";
import type { LedgerDidResolver } from "../ports.js";
import { UpstreamUnavailableError } from "../upstream.js";
import type { KeyLookup } from "./key-lookup.js";

export const didOf = (didUrl: string) => didUrl.split("#")[0] ?? didUrl;

type DidKeyLookup = { jwk: Record<string, unknown> } | Extract<KeyLookup, { outcome: unknown }>;

/**
 * The assertionMethod verification method a DID URL names in a DID document (absolute or
 * `#fragment` ids); without a DID URL, the document's first assertionMethod. A document without
 * an assertionMethod list has no key that may sign credentials.
 */
function assertionMethodJwk(document: Record<string, unknown>, did: string, didUrl: string | undefined): DidKeyLookup {
  const methods = Array.isArray(document.verificationMethod) ? document.verificationMethod.filter(isJsonObject) : [];
  const absolute = (id: unknown) => (typeof id === "string" && id.startsWith("#") ? `${did}${id}` : id);
  const assertion = Array.isArray(document.assertionMethod)
    ? document.assertionMethod.map((entry) => absolute(isJsonObject(entry) ? entry.id : entry))
    : [];
  const embedded = Array.isArray(document.assertionMethod)
    ? document.assertionMethod.filter(isJsonObject)
    : ([] as Record<string, unknown>[]);
  const wanted = didUrl ?? (assertion.find((id) => typeof id === "string") as string | undefined);
  const method = wanted ? [...methods, ...embedded].find((m) => absolute(m.id) === wanted) : undefined;
  if (!method || !isJsonObject(method.publicKeyJwk)) {
    return { outcome: failed("issuer_key_not_found", "the issuer DID document has no key for the JWT's kid") };
  }
  if (!assertion.includes(absolute(method.id))) {
    return { outcome: failed("issuer_key_not_authorized", "the issuer key is not an assertionMethod of its DID") };
  }
  return { jwk: method.publicKeyJwk };
}

/**
 * The assertionMethod key of a DID (did:key locally, did:ledger through the ledger), the one
 * `didUrl` names when given. A did:key has exactly one key, which may assert.
 */
export async function didAssertionKey(
  ledger: LedgerDidResolver,
  did: string,
  didUrl: string | undefined,
): Promise<DidKeyLookup> {
  if (did.startsWith("did:key:")) {
    if (didUrl !== undefined && didUrl !== did && didUrl !== `${did}#${did.slice("did:key:".length)}`) {
      return { outcome: failed("issuer_key_not_found", "the kid names no key of the issuer did:key") };
    }
    try {
      return { jwk: publicJwkFromDidKey(did) as unknown as Record<string, unknown> };
    } catch (error) {
      if (error instanceof KeyFormatError)
        return { outcome: failed("issuer_key_not_found", "the issuer did:key is not decodable") };
      throw error;
    }
  }
  if (!did.startsWith("did:ledger:")) {
    return { outcome: failed("unsupported_did_method", "issuer DIDs must be did:ledger or did:key") };
  }
  let resolution: Awaited<ReturnType<LedgerDidResolver["resolve"]>>;
  try {
    resolution = await ledger.resolve(did);
  } catch (error) {
    if (error instanceof UpstreamUnavailableError) {
      return {
        outcome: failed("issuer_resolution_unavailable", "the ledger could not be reached to resolve the issuer DID"),
      };
    }
    throw error;
  }
  if (!resolution.found) return { outcome: failed("issuer_did_not_found", "the issuer DID is not on the ledger") };
  if (resolution.deactivated) return { outcome: failed("issuer_did_deactivated", "the issuer DID is deactivated") };
  return assertionMethodJwk(resolution.document, did, didUrl);
}

/**
 * A DID `iss`: the signing key is an assertionMethod of that DID. `kid` may be absent (the DID's
 * first assertionMethod), a `#fragment` of it, or a DID URL of the same DID; a `kid` of another DID
 * fails `issuer_mismatch`.
 */
export async function issuerKeyOfDidIss(
  ledger: LedgerDidResolver,
  iss: string,
  kid: string | undefined,
): Promise<KeyLookup> {
  const did = didOf(iss);
  let didUrl: string | undefined;
  if (kid === undefined) didUrl = iss.includes("#") ? iss : undefined;
  else if (kid.startsWith("#")) didUrl = `${did}${kid}`;
  else if (kid.startsWith("did:")) didUrl = kid;
  else return { outcome: failed("issuer_key_unresolvable", "the kid of a DID issuer must be a DID URL or #fragment") };
  if (didUrl !== undefined && didOf(didUrl) !== did) {
    return { outcome: failed("issuer_mismatch", "the kid names a key of another DID than the credential's iss") };
  }
  const lookup = await didAssertionKey(ledger, did, didUrl);
  return "outcome" in lookup ? lookup : { jwk: lookup.jwk, binding: "did", did };
}
