/** Key material that cannot be decoded; the message is safe to show (it never contains the key). */
export class KeyFormatError extends Error {
  override name = "KeyFormatError";
}
