/** Why a PKCE check failed: a stable label for logs and metrics (never the verifier itself). */
export type PkceFailureReason = "missing" | "malformed" | "mismatch";

/**
 * A refused PKCE code_verifier (RFC 7636 §4.6). The message is safe to show: it never embeds the
 * verifier or the challenge. The token endpoint answers it as `invalid_grant`.
 */
export class PkceError extends Error {
  override name = "PkceError";
  readonly reason: PkceFailureReason;

  constructor(reason: PkceFailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
