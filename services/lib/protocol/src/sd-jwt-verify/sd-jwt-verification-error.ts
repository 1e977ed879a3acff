/**
 * A presentation that fails an SD-JWT rule. `code` is a stable machine reason (it becomes a check's
 * `reason_code`); `message` is safe to show: it never contains the token, a disclosure or a claim value.
 */
export class SdJwtVerificationError extends Error {
  override name = "SdJwtVerificationError";
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
