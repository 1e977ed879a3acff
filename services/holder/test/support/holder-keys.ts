import {
  didKeyFromPublicJwk,
  ed25519JwkFromSeed,
  ed25519PublicJwk,
  generateEd25519Jwk,
  generateP256Jwk,
  p256PublicJwk,
} from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import type { Account } from "./test-holder.js";

/** A holder identity as a client of the holder API sends it: holder_did and private_key. */
export interface HolderIdentity {
  did: string;
  privateKey: string;
  publicJwk: { kty: string; crv: string; x: string; y?: string };
}

/** did:key over Ed25519 (private_key: the base64url seed). */
export function ed25519DidKey(): HolderIdentity {
  const jwk = generateEd25519Jwk();
  const publicJwk = ed25519PublicJwk(jwk);
  return { did: didKeyFromPublicJwk(publicJwk), privateKey: jwk.d, publicJwk };
}

/** did:key over P-256 (private_key: the base64url raw `d`). */
export function p256DidKey(): HolderIdentity {
  const jwk = generateP256Jwk();
  const publicJwk = p256PublicJwk(jwk);
  return { did: didKeyFromPublicJwk(publicJwk), privateKey: jwk.d, publicJwk };
}

/** A did:ledger DID created through POST /v1/did for the account. */
export async function ledgerDid(app: App, account: Account): Promise<HolderIdentity> {
  const response = await app.inject({
    method: "POST",
    url: "/v1/did",
    headers: account.headers,
    payload: { method: "LEDGER" },
  });
  if (response.statusCode !== 201) throw new Error(`POST /v1/did failed: ${response.body}`);
  const { did, private_key: privateKey } = response.json() as { did: string; private_key: string };
  return { did, privateKey, publicJwk: ed25519PublicJwk(ed25519JwkFromSeed(Buffer.from(privateKey, "base64url"))) };
}
