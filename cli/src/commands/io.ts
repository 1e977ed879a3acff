/** Where a command writes: stdout lines (results) and stderr lines (messages). */
export interface CommandIo {
  out(line: string): void;
  err(line: string): void;
}

/** Thrown for a wrong command line: exit code 2 with this message and the usage. */
export class UsageError extends Error {
  override name = "UsageError";
}
