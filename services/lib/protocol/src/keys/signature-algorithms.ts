/**
 * The JWS algorithms the platform signs with and accepts, everywhere: credentials and KB-JWTs, key
 * proofs, DPoP proofs, client attestations, request objects, and what metadata advertises. ES256
 * (P-256, HAIP) first, then EdDSA (Ed25519, the DID path). `none` and symmetric algorithms never.
 */
export const SIGNATURE_ALGORITHMS = ["ES256", "EdDSA"] as const;

export type SignatureAlgorithm = (typeof SIGNATURE_ALGORITHMS)[number];

export const isSignatureAlgorithm = (alg: unknown): alg is SignatureAlgorithm =>
  typeof alg === "string" && (SIGNATURE_ALGORITHMS as readonly string[]).includes(alg);
