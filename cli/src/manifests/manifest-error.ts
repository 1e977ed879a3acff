/** Thrown for a file that cannot be read or parsed; the message names the file and document. */
export class ManifestError extends Error {
  override name = "ManifestError";
}
