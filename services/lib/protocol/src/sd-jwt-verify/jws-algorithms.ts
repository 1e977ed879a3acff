import { SIGNATURE_ALGORITHMS } from "../keys/signature-algorithms.js";

/**
 * JWS algorithms accepted for issuer-signed JWTs and KB-JWTs (HAIP: ES256; the DID path: EdDSA).
 * `none` and symmetric algorithms are never accepted.
 */
export const ALLOWED_JWS_ALGORITHMS = SIGNATURE_ALGORITHMS;

export type AllowedJwsAlgorithm = (typeof ALLOWED_JWS_ALGORITHMS)[number];

export const isAllowedJwsAlgorithm = (alg: unknown): alg is AllowedJwsAlgorithm =>
  typeof alg === "string" && (ALLOWED_JWS_ALGORITHMS as readonly string[]).includes(alg);
