import { ed25519JwkFromSeed } from "@attesto/protocol";
import { badRequest, conflict } from "@attesto/runtime/errors";
import { ed25519VerificationMethods } from "./did-document.js";
import type { LoginPrincipal } from "./login-token.js";
import type { TrustRegistryDependencies } from "./ports.js";
import { DidAlreadyHeldError } from "./ports.js";
import type { TenantDid } from "./tenant-did.js";

export const DID_NOT_FOUND_MESSAGE = "DID not found on the ledger";
export const DID_DEACTIVATED_MESSAGE = "DID is deactivated on the ledger";
export const KEY_MISMATCH_MESSAGE = "Private key does not match the DID";
export const DID_HELD_ELSEWHERE_MESSAGE = "DID is already registered to another organization";

/**
 * `POST /v1/did/import` (prefix and key format are checked by the route):
 * 1. resolve the DID on the ledger (unknown => 400, unreachable => 503);
 * 2. refuse a deactivated DID;
 * 3. prove ownership: the seed's public key must be one of the document's Ed25519 keys;
 * 4. a DID this tenant already holds is returned as is (idempotent, nothing new in custody);
 *    one held by another tenant => 409;
 * 5. hand the key to custody and record the DID.
 */
export async function importTenantDid(
  domain: Pick<TrustRegistryDependencies, "ledger" | "custody" | "dids">,
  principal: LoginPrincipal,
  request: { did: string; seed: Uint8Array },
): Promise<TenantDid> {
  const resolved = await domain.ledger.resolveDid(request.did);
  if (!resolved) throw badRequest(DID_NOT_FOUND_MESSAGE);
  if (resolved.deactivated) throw badRequest(DID_DEACTIVATED_MESSAGE);

  const privateJwk = ed25519JwkFromSeed(request.seed);
  const method = ed25519VerificationMethods(request.did, resolved.document).find(
    (candidate) => candidate.publicJwk.x === privateJwk.x,
  );
  if (!method) throw badRequest(KEY_MISMATCH_MESSAGE);

  const existing = await heldAlready(domain, principal, request.did);
  if (existing) return existing;

  const held = await domain.custody.importKey(principal.tenant, "EdDSA", { ...privateJwk });
  try {
    return await domain.dids.insert({
      did: request.did,
      tenant: principal.tenant,
      keyId: method.id,
      custodyKeyId: held.keyId,
      source: "imported",
    });
  } catch (error) {
    if (!(error instanceof DidAlreadyHeldError)) throw error;
    // Imported concurrently: same outcome as a sequential retry.
    const winner = await heldAlready(domain, principal, request.did);
    if (winner) return winner;
    throw error;
  }
}

async function heldAlready(
  domain: Pick<TrustRegistryDependencies, "dids">,
  principal: LoginPrincipal,
  did: string,
): Promise<TenantDid | undefined> {
  const existing = await domain.dids.find(did);
  if (!existing) return undefined;
  if (existing.tenant !== principal.tenant) throw conflict(DID_HELD_ELSEWHERE_MESSAGE);
  return existing;
}
