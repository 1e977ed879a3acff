/** A short, log-safe description of a failure for the attempt log (no stack, no payloads). */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.slice(0, 500);
}
