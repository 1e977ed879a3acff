import type { Ed25519PrivateJwk } from "@attesto/protocol";
import { calculateJwkThumbprint, importJWK, SignJWT } from "jose";
import type { CheckpointPublicJwk, CheckpointSigner } from "./ports.js";

/** `typ` of a checkpoint JWS (RFC 8725 explicit typing: it cannot be mistaken for another JWT). */
export const CHECKPOINT_JWS_TYPE = "ledger-checkpoint+jwt";
export const CHECKPOINT_JWS_ALG: CheckpointPublicJwk["alg"] = "EdDSA";

/** Signs checkpoints with an Ed25519 private JWK as `issuer`. */
export async function createCheckpointSigner(privateJwk: Ed25519PrivateJwk, issuer: string): Promise<CheckpointSigner> {
  const publicPart = { kty: "OKP" as const, crv: "Ed25519" as const, x: privateJwk.x };
  const kid = await calculateJwkThumbprint(publicPart, "sha256");
  const key = await importJWK({ ...privateJwk, alg: CHECKPOINT_JWS_ALG }, CHECKPOINT_JWS_ALG);
  const publicJwk: CheckpointPublicJwk = { ...publicPart, kid, alg: CHECKPOINT_JWS_ALG, use: "sig" };
  return {
    publicJwk: async () => publicJwk,
    sign: (claims) =>
      new SignJWT({ ...claims })
        .setProtectedHeader({ alg: CHECKPOINT_JWS_ALG, typ: CHECKPOINT_JWS_TYPE, kid })
        .setIssuer(issuer)
        .setIssuedAt(Math.floor(Date.parse(claims.created_at) / 1000))
        .sign(key),
  };
}

/**
 * A signer whose key is loaded on first use (from config or the database) and then kept; a failed
 * load is retried on the next use rather than cached.
 */
export function lazyCheckpointSigner(load: () => Promise<CheckpointSigner>): CheckpointSigner {
  let loading: Promise<CheckpointSigner> | undefined;
  const signer = () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  return {
    publicJwk: async () => (await signer()).publicJwk(),
    sign: async (claims) => (await signer()).sign(claims),
  };
}
