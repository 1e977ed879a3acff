import { ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import { badRequest } from "@attesto/runtime/errors";
import { LEDGER_DID_METHOD } from "../model.js";
import type { HolderDependencies } from "../ports.js";

export interface CreatedHolderDid {
  did: string;
  /** base64url Ed25519 seed: returned once, never stored. */
  privateKey: string;
}

/**
 * POST /v1/did: a fresh Ed25519 key anchored as a did:ledger DID (ledger unreachable => 503,
 * nothing stored). The holder keeps the DID, its key id and public key; the private key only
 * goes back to the caller, who sends it with every request that signs.
 */
export async function createHolderDid(
  deps: Pick<HolderDependencies, "ledger" | "dids" | "now">,
  userUuid: string,
  method: string,
): Promise<CreatedHolderDid> {
  if (method.toUpperCase() !== LEDGER_DID_METHOD) {
    throw badRequest(`DID method is not supported (supported: ${LEDGER_DID_METHOD})`);
  }
  const privateJwk = generateEd25519Jwk();
  const publicJwk = ed25519PublicJwk(privateJwk);
  const anchored = await deps.ledger.createDid(publicJwk);
  await deps.dids.insert({
    userUuid,
    did: anchored.did,
    method: LEDGER_DID_METHOD,
    keyId: anchored.keyId,
    publicJwk,
    source: "created",
    status: "active",
    createdAt: new Date(Math.floor(deps.now().getTime() / 1000) * 1000),
  });
  return { did: anchored.did, privateKey: privateJwk.d };
}
