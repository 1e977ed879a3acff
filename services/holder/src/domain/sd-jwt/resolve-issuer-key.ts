import {
  type Certificate,
  DidKeyResolutionError,
  publicJwkOf,
  samePublicKey,
  subjectAltNamesOf,
} from "@attesto/protocol";
import { invalidCredential } from "../errors.js";
import { fetchFromThirdParty } from "../http/fetch-from-third-party.js";
import { isJsonObject, jsonObjectOf, stringOf } from "../http/read-json.js";
import { sameIdentifier, wellKnownUrlOf } from "../http/well-known.js";
import type { HolderDependencies } from "../ports.js";
import { resolveDidKey } from "./resolve-did-key.js";
import { verifyX5cIntegrity, X5cIntegrityError } from "./verify-x5c-integrity.js";

/** The key that signed an issuer JWT, and who that is. */
export interface IssuerKey {
  publicJwk: Record<string, unknown>;
  /**
   * The DID of a DID-signed credential, or of a jwt-vc-issuer key whose DID kid holds the same key;
   * else the `iss` of one signed with x5c or a jwt-vc-issuer key.
   */
  issuerDid: string;
  via: "did" | "x5c" | "jwt-vc-issuer";
}

const JWT_VC_ISSUER_SUFFIX = "jwt-vc-issuer";

/** SD-JWT VC issuer metadata (`/.well-known/jwt-vc-issuer/<path>`): its `jwks` or `jwks_uri`, key by `kid`. */
async function jwtVcIssuerKey(
  deps: Pick<HolderDependencies, "http">,
  iss: string,
  kid: string | undefined,
): Promise<Record<string, unknown>> {
  const fetchJson = async (url: string, what: string) => {
    const response = await fetchFromThirdParty(deps, url, what, invalidCredential, {
      method: "GET",
      headers: { accept: "application/json" },
    });
    const body = response.status === 200 ? jsonObjectOf(response) : undefined;
    if (!body)
      throw invalidCredential(`the issuer key cannot be resolved: ${what} is unavailable (HTTP ${response.status})`);
    return body;
  };
  const metadata = await fetchJson(wellKnownUrlOf(iss, JWT_VC_ISSUER_SUFFIX), "JWT VC issuer metadata");
  if (!stringOf(metadata.issuer) || !sameIdentifier(metadata.issuer as string, iss)) {
    throw invalidCredential("JWT VC issuer metadata names another issuer than the credential's iss");
  }
  const jwks = isJsonObject(metadata.jwks)
    ? metadata.jwks
    : stringOf(metadata.jwks_uri)
      ? await fetchJson(metadata.jwks_uri as string, "JWT VC issuer JWKS")
      : undefined;
  const keys = Array.isArray(jwks?.keys) ? jwks.keys.filter(isJsonObject) : [];
  const key = kid === undefined ? (keys.length === 1 ? keys[0] : undefined) : keys.find((k) => k.kid === kid);
  if (!key) throw invalidCredential("the issuer's JWT VC metadata has no key for the credential's kid");
  return key;
}

/** The leaf names `iss`: a URI SAN equal to it, or (only without URI SANs) a dNSName SAN of its host. */
function leafNamesIssuer(leaf: Certificate, iss: string): boolean {
  const { uris, dnsNames } = subjectAltNamesOf(leaf);
  if (uris.length > 0) return uris.includes(iss);
  const host = new URL(iss).hostname.toLowerCase();
  return dnsNames.some((name) => name.toLowerCase() === host);
}

/**
 * When a metadata key's `kid` is a DID URL whose DID holds the same key as an assertionMethod, the
 * issuer is also that DID (Attesto's DID path publishes its did:ledger keys this way).
 */
async function didOfMetadataKey(
  deps: Pick<HolderDependencies, "ledger">,
  key: Record<string, unknown>,
): Promise<string | undefined> {
  const kid = stringOf(key.kid);
  if (!kid?.startsWith("did:")) return undefined;
  try {
    const method = await resolveDidKey(deps, kid);
    const published = publicJwkOf(key);
    return published && samePublicKey(method.publicJwk, published) ? method.did : undefined;
  } catch (error) {
    if (error instanceof DidKeyResolutionError) return undefined;
    throw error;
  }
}

/**
 * The key bound to the credential's `iss` (SD-JWT VC draft, "Issuer verification key"):
 * - a DID `iss`: a key of that DID (did:key, did:ledger), named by a `kid` of the same DID, a
 *   `#fragment`, or nothing; a `kid` of another DID is refused;
 * - an http(s) `iss` with `x5c`: the chain holds together and its leaf names `iss` in a
 *   subjectAltName (whether the chain leads to a trusted root is the relying party's decision);
 * - an http(s) `iss` otherwise: the `kid` key of its JWT VC Issuer Metadata, whose `issuer` is `iss`.
 */
export async function resolveIssuerKey(
  deps: Pick<HolderDependencies, "ledger" | "http" | "now" | "clockSkewSeconds">,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
): Promise<IssuerKey> {
  const iss = stringOf(payload.iss);
  if (!iss) throw invalidCredential("the credential has no iss");
  const kid = stringOf(header.kid);
  if (iss.startsWith("did:")) {
    const did = iss.split("#")[0] ?? iss;
    const didUrl = kid === undefined ? iss : kid.startsWith("#") ? `${did}${kid}` : kid;
    if ((didUrl.split("#")[0] ?? didUrl) !== did) {
      throw invalidCredential("the credential's kid names another DID than its iss");
    }
    try {
      const method = await resolveDidKey(deps, didUrl);
      return { publicJwk: method.publicJwk as unknown as Record<string, unknown>, issuerDid: method.did, via: "did" };
    } catch (error) {
      if (error instanceof DidKeyResolutionError) throw invalidCredential(`issuer key: ${error.message}`);
      throw error;
    }
  }
  if (!/^https?:\/\//.test(iss)) {
    throw invalidCredential("the credential's iss is neither a DID nor an http(s) URL: no key is bound to it");
  }
  if (header.x5c !== undefined) {
    let checked: Awaited<ReturnType<typeof verifyX5cIntegrity>>;
    try {
      checked = await verifyX5cIntegrity(header.x5c, deps.now(), deps.clockSkewSeconds);
    } catch (error) {
      if (error instanceof X5cIntegrityError) throw invalidCredential(`issuer certificate chain: ${error.message}`);
      throw error;
    }
    if (!leafNamesIssuer(checked.leaf, iss)) {
      throw invalidCredential("the issuer certificate's subjectAltName does not name the credential's iss");
    }
    return { publicJwk: checked.leafPublicJwk, issuerDid: iss, via: "x5c" };
  }
  const key = await jwtVcIssuerKey(deps, iss, kid);
  return { publicJwk: key, issuerDid: (await didOfMetadataKey(deps, key)) ?? iss, via: "jwt-vc-issuer" };
}
