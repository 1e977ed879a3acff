import { ed25519JwkFromSeed, ed25519PublicJwk, verificationMethodsOf } from "@attesto/protocol";
import { badRequest } from "@attesto/runtime/errors";
import { type HolderDid, LEDGER_DID_METHOD } from "../model.js";
import type { HolderDependencies } from "../ports.js";

export const DID_NOT_FOUND_MESSAGE = "DID not found on the ledger";
export const DID_DEACTIVATED_MESSAGE = "DID is deactivated on the ledger";
export const OWNERSHIP_CHECK_FAILED_MESSAGE =
  "DID ownership check failed: private_key does not match a key of the DID document";

/**
 * POST /v1/did/import (prefix and key format are the route's):
 * 1. resolve the DID on the ledger (unknown or deactivated => 400, unreachable => 503);
 * 2. prove ownership: the seed's public key must be an Ed25519 verification method of the document;
 * 3. record the DID for the holder (a DID the holder already has is answered as it is).
 */
export async function importHolderDid(
  deps: Pick<HolderDependencies, "ledger" | "dids" | "now">,
  userUuid: string,
  request: { did: string; seed: Uint8Array },
): Promise<HolderDid> {
  const resolved = await deps.ledger.resolveDid(request.did);
  if (!resolved) throw badRequest(DID_NOT_FOUND_MESSAGE);
  if (resolved.deactivated) throw badRequest(DID_DEACTIVATED_MESSAGE);
  const publicJwk = ed25519PublicJwk(ed25519JwkFromSeed(request.seed));
  const method = verificationMethodsOf(resolved.document, request.did).find(
    (candidate) => candidate.publicJwk.kty === "OKP" && candidate.publicJwk.x === publicJwk.x,
  );
  if (!method) throw badRequest(OWNERSHIP_CHECK_FAILED_MESSAGE);
  return deps.dids.insert({
    userUuid,
    did: request.did,
    method: LEDGER_DID_METHOD,
    keyId: method.id,
    publicJwk,
    source: "imported",
    status: "active",
    createdAt: new Date(Math.floor(deps.now().getTime() / 1000) * 1000),
  });
}
