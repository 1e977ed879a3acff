import { ConfigError } from "@attesto/runtime/config";

/** A start-up failure whose message already says what went wrong and what to do about it. */
export class StartupError extends Error {
  override name = "StartupError";
}

/** One readable explanation of why start-up failed, following the chain of causes. */
export function describeStartupError(error: unknown): string {
  if (error instanceof ConfigError || error instanceof StartupError) {
    return error.cause === undefined ? error.message : `${error.message}: ${describeStartupError(error.cause)}`;
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") return `${error.message} (another process uses this port)`;
    if (code === "ECONNREFUSED") return `${error.message} (is the database running? check DATABASE_URL)`;
    const cause =
      error.cause === undefined || error.message.includes(describeStartupError(error.cause))
        ? ""
        : ` (caused by: ${describeStartupError(error.cause)})`;
    return `${error.message || error.name}${cause}`;
  }
  return String(error);
}
