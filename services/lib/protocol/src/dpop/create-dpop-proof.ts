import { randomUUID } from "node:crypto";
import { type JWK, SignJWT } from "jose";
import { normalizeHtu } from "./compare-htu.js";
import { computeDpopAth } from "./compute-dpop-ath.js";
import { DPOP_PROOF_TYP, type DpopSigningAlg } from "./z-dpop.js";

export interface CreateDpopProofOptions {
  /** The client's private key: P-256 (ES256) or Ed25519 (EdDSA). Only its public part goes into the proof. */
  privateJwk: JWK;
  method: string;
  /** The endpoint URL; query and fragment are dropped from `htu`. */
  url: string;
  /** Adds `ath` for a resource request. */
  accessToken?: string;
  /** The server's `DPoP-Nonce`, once it asked for one. */
  nonce?: string;
  /** Defaults to a random UUID. */
  jti?: string;
  now?: Date;
}

function algOf(jwk: JWK): DpopSigningAlg {
  if (jwk.kty === "EC" && jwk.crv === "P-256") return "ES256";
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "EdDSA";
  throw new Error("DPoP keys must be P-256 or Ed25519");
}

/** A DPoP proof JWT (RFC 9449 §4.2), as a client (the holder, tests) sends it. */
export async function createDpopProof(options: CreateDpopProofOptions): Promise<string> {
  const { privateJwk } = options;
  const alg = algOf(privateJwk);
  const publicJwk: JWK = { kty: privateJwk.kty, crv: privateJwk.crv, x: privateJwk.x };
  if (privateJwk.y !== undefined) publicJwk.y = privateJwk.y;
  const htu = normalizeHtu(options.url);
  if (!htu) throw new Error("DPoP proof url must be an absolute http(s) URL");
  const now = options.now ?? new Date();
  return new SignJWT({
    jti: options.jti ?? randomUUID(),
    htm: options.method,
    htu,
    iat: Math.floor(now.getTime() / 1000),
    ...(options.accessToken === undefined ? {} : { ath: computeDpopAth(options.accessToken) }),
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
  })
    .setProtectedHeader({ typ: DPOP_PROOF_TYP, alg, jwk: publicJwk })
    .sign(privateJwk);
}
