/** A seed file that cannot be loaded. Start-up fails with this message, which names the file. */
export class SeedError extends Error {
  override name = "SeedError";

  constructor(
    readonly file: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`Credential type seed ${file} is invalid: ${problem}`, options);
  }
}
