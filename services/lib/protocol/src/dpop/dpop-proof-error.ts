/** The RFC 9449 error codes a DPoP proof check can end with. */
export type DpopProofErrorCode = "invalid_dpop_proof" | "use_dpop_nonce";

/** Why a proof was refused: a stable label for metrics and logs (never the proof itself). */
export type DpopProofFailureReason =
  | "missing"
  | "multiple"
  | "malformed"
  | "typ"
  | "alg"
  | "jwk"
  | "signature"
  | "claims"
  | "htm"
  | "htu"
  | "iat"
  | "ath"
  | "jkt"
  | "nonce"
  | "replay";

/**
 * A refused DPoP proof. `code` is the OAuth error code to answer with; the message is a precise
 * description that is safe to show (it never embeds the proof, the key or the access token).
 */
export class DpopProofError extends Error {
  override name = "DpopProofError";
  readonly code: DpopProofErrorCode;
  readonly reason: DpopProofFailureReason;

  constructor(
    code: DpopProofErrorCode,
    reason: DpopProofFailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = code;
    this.reason = reason;
  }
}

/** An `invalid_dpop_proof` failure. */
export const invalidDpopProof = (reason: DpopProofFailureReason, message: string, cause?: unknown) =>
  new DpopProofError("invalid_dpop_proof", reason, message, cause === undefined ? undefined : { cause });
