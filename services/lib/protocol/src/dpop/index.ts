export { htuMatches, normalizeHtu } from "./compare-htu.js";
export { computeDpopAth } from "./compute-dpop-ath.js";
export {
  type CreateDpopNoncesOptions,
  createDpopNonces,
  DEFAULT_DPOP_NONCE_LIFETIME_SECONDS,
  type DpopNonces,
} from "./create-dpop-nonces.js";
export { type CreateDpopProofOptions, createDpopProof } from "./create-dpop-proof.js";
export { DpopProofError, type DpopProofErrorCode, type DpopProofFailureReason } from "./dpop-proof-error.js";
export {
  DPOP_JTI_LIFETIME_SECONDS,
  DPOP_JTI_NAMESPACE,
  DPOP_PROOF_MAX_AGE_SECONDS,
  DPOP_PROOF_MAX_FUTURE_SKEW_SECONDS,
  type DpopReplayStore,
  type VerifiedDpopProof,
  type VerifyDpopProofOptions,
  verifyDpopProof,
} from "./verify-dpop-proof.js";
export {
  DPOP_PROOF_TYP,
  DPOP_SIGNING_ALGS,
  type DpopJwk,
  type DpopJwtHeader,
  type DpopJwtPayload,
  type DpopSigningAlg,
  zDpopJwtHeader,
  zDpopJwtPayload,
} from "./z-dpop.js";
