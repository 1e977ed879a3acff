/** Why a c_nonce was refused; the message is safe to show (it never contains the nonce). */
export type CNonceErrorCode = "malformed" | "bad_signature" | "expired";

export class CNonceError extends Error {
  override name = "CNonceError";
  readonly code: CNonceErrorCode;

  constructor(code: CNonceErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
