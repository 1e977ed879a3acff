/** PostgreSQL unique_violation. */
const UNIQUE_VIOLATION = "23505";

/** The constraint (or unique index) name of a unique violation, else undefined. */
export function uniqueViolationOf(error: unknown): string | undefined {
  const candidate = error as { code?: unknown; constraint?: unknown } | null;
  if (candidate?.code !== UNIQUE_VIOLATION) return undefined;
  return typeof candidate.constraint === "string" ? candidate.constraint : "";
}
