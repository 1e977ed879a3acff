import { DidKeyResolutionError } from "@attesto/protocol";
import type { HolderDependencies } from "../dependencies.js";
import { invalidCredential } from "../errors.js";
import { fetchFromThirdParty } from "../http/fetch-from-third-party.js";
import { isJsonObject, jsonObjectOf, stringOf } from "../http/read-json.js";
import { sameIdentifier, wellKnownUrlOf } from "../http/well-known.js";
import { resolveDidKey } from "./resolve-did-key.js";
import { verifyX5cIntegrity, X5cIntegrityError } from "./verify-x5c-integrity.js";

/** The key that signed an issuer JWT, and who that is. */
export interface IssuerKey {
  publicJwk: Record<string, unknown>;
  /** The DID of a DID-signed credential; the `iss` of one signed with x5c or a jwt-vc-issuer key. */
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

/**
 * Who signed an issuer JWT, by its header: `x5c` (chain integrity, leaf key); a DID URL `kid`, or
 * a `#fragment` relative to a DID `iss`, or a DID `iss` alone (did:key, did:ledger); otherwise the
 * https `iss`'s SD-JWT VC issuer metadata. A kid DID must be the `iss` when `iss` is a DID.
 */
export async function resolveIssuerKey(
  deps: Pick<HolderDependencies, "ledger" | "http" | "now" | "clockSkewSeconds">,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
): Promise<IssuerKey> {
  const iss = stringOf(payload.iss);
  if (!iss) throw invalidCredential("the credential has no iss");
  if (header.x5c !== undefined) {
    try {
      const { leafPublicJwk } = await verifyX5cIntegrity(header.x5c, deps.now(), deps.clockSkewSeconds);
      return { publicJwk: leafPublicJwk, issuerDid: iss, via: "x5c" };
    } catch (error) {
      if (error instanceof X5cIntegrityError) throw invalidCredential(`issuer certificate chain: ${error.message}`);
      throw error;
    }
  }
  const kid = stringOf(header.kid);
  const didUrl = kid?.startsWith("did:")
    ? kid
    : iss.startsWith("did:")
      ? kid?.startsWith("#")
        ? `${iss}${kid}`
        : kid === undefined
          ? iss
          : undefined
      : undefined;
  if (didUrl) {
    try {
      const method = await resolveDidKey(deps, didUrl);
      if (iss.startsWith("did:") && method.did !== iss.split("#")[0]) {
        throw invalidCredential("the credential's kid names another DID than its iss");
      }
      return { publicJwk: method.publicJwk as unknown as Record<string, unknown>, issuerDid: method.did, via: "did" };
    } catch (error) {
      if (error instanceof DidKeyResolutionError) throw invalidCredential(`issuer key: ${error.message}`);
      throw error;
    }
  }
  if (/^https?:\/\//.test(iss)) {
    return { publicJwk: await jwtVcIssuerKey(deps, iss, kid), issuerDid: iss, via: "jwt-vc-issuer" };
  }
  throw invalidCredential("the issuer key cannot be determined (no x5c, DID kid or https iss)");
}
