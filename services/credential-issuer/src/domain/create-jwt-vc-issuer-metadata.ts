import { type PublicJwk, type SignatureAlgorithm, samePublicKey, verificationMethodsOf } from "@attesto/protocol";
import { findIssuerTenant } from "./create-issuer-metadata.js";
import { issuerIdentifierOf } from "./issuer-identifier.js";
import type { IssuerSigningKey } from "./issuer-signing-keys.js";
import type { IssuerDependencies } from "./ports.js";

/** A key of the metadata's JWK Set: its `kid` is the `kid` header of the credentials it verifies. */
export type IssuerJwk = PublicJwk & { kid: string; alg: SignatureAlgorithm; use: "sig" };

/** JWT VC Issuer Metadata (SD-JWT VC draft): the issuer identifier and its keys, inline. */
export interface JwtVcIssuerMetadata {
  issuer: string;
  jwks: { keys: IssuerJwk[] };
}

/**
 * Keys a verifier may still trust: a did:key cannot change; a did:ledger key is listed while its DID
 * is active and still names it as an assertion method (a rotated or deactivated key drops out).
 */
async function currentKeys(
  deps: Pick<IssuerDependencies, "ledger">,
  keys: IssuerSigningKey[],
): Promise<IssuerSigningKey[]> {
  const ledgerDids = [...new Set(keys.filter((key) => key.did.startsWith("did:ledger:")).map((key) => key.did))];
  const documents = new Map(
    await Promise.all(ledgerDids.map(async (did) => [did, await deps.ledger.resolveDid(did)] as const)),
  );
  return keys.filter((key) => {
    if (key.did.startsWith("did:key:")) return true;
    const resolved = documents.get(key.did);
    if (!resolved || resolved.deactivated) return false;
    return verificationMethodsOf(resolved.document, key.did, "assertionMethod").some(
      (method) => method.id === key.kid && samePublicKey(method.publicJwk, key.publicJwk),
    );
  });
}

/**
 * GET /.well-known/jwt-vc-issuer/<tenant>: the JWT VC Issuer Metadata of the tenant's `iss`
 * (`<issuer public URL>/<tenant>`), listing the public keys of its DID-path credentials. X.509-path
 * credentials carry their key in `x5c` and are not listed. 404 for an unknown tenant; 503 while the
 * ledger is unreachable.
 */
export async function createJwtVcIssuerMetadata(
  deps: Pick<IssuerDependencies, "issuerSigningKeys" | "issuerUrl" | "ledger" | "tenants">,
  tenantId: string,
): Promise<JwtVcIssuerMetadata> {
  const tenant = await findIssuerTenant(deps, tenantId);
  const keys = await currentKeys(deps, await deps.issuerSigningKeys.listByTenant(tenant.tenant));
  return {
    issuer: issuerIdentifierOf(deps.issuerUrl, tenant.tenant),
    jwks: { keys: keys.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: key.alg, use: "sig" })) },
  };
}
