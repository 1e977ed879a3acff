/**
 * A presented mdoc that fails an ISO/IEC 18013-5 or OID4VP rule. `code` is a stable machine reason
 * (a check's `reason_code`); `message` is safe to show: it names elements, never their values.
 */
export class MdocVerificationError extends Error {
  override name = "MdocVerificationError";
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
