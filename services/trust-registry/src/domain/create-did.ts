import { ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import type { LoginPrincipal } from "./login-token.js";
import type { TrustRegistryDependencies } from "./ports.js";

export interface CreatedDid {
  did: string;
  keyId: string;
  /** Ed25519 public key (base64url `x`). */
  x: string;
  /** The base64url seed, returned once: the platform keeps its own copy in custody. */
  privateKey: string;
}

/**
 * `POST /v1/did`: a new Ed25519 key, anchored as a did:ledger DID, kept in custody for signing.
 * 1. generate the key; 2. create the DID on the ledger (unreachable => 503, nothing stored);
 * 3. hand the key to custody and record the DID for the tenant. When step 3 fails, the DID just
 * anchored is deactivated on the ledger (best effort) so no usable half remains.
 */
export async function createTenantDid(
  domain: Pick<TrustRegistryDependencies, "ledger" | "custody" | "dids">,
  principal: LoginPrincipal,
): Promise<CreatedDid> {
  const privateJwk = generateEd25519Jwk();
  const anchored = await domain.ledger.createDid(ed25519PublicJwk(privateJwk));
  try {
    const held = await domain.custody.importKey(principal.tenant, "EdDSA", { ...privateJwk });
    await domain.dids.insert({
      did: anchored.did,
      tenant: principal.tenant,
      keyId: anchored.keyId,
      custodyKeyId: held.keyId,
      source: "created",
    });
  } catch (error) {
    await domain.ledger.deactivateDid(anchored.did).catch(() => undefined);
    throw error;
  }
  return { did: anchored.did, keyId: anchored.keyId, x: privateJwk.x, privateKey: privateJwk.d };
}
