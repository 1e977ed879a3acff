/** Why an access token was refused: a stable label for callers, metrics and logs. */
export type AccessTokenFailureReason =
  | "malformed"
  | "expired"
  | "not_yet_valid"
  | "invalid_signature"
  | "unknown_key"
  | "wrong_type"
  | "wrong_issuer"
  | "wrong_audience"
  | "invalid_claims"
  /** The issuer's key set could not be fetched: not the token's fault (answer 503, not 401). */
  | "key_set_unavailable";

/**
 * A refused access token. `code` is the RFC 6750 error code (`invalid_token`, 401) for every
 * reason except `key_set_unavailable`; the message is safe to show and never embeds the token.
 */
export class AccessTokenError extends Error {
  override name = "AccessTokenError";
  readonly code = "invalid_token";
  readonly reason: AccessTokenFailureReason;

  constructor(reason: AccessTokenFailureReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}
