/**
 * The soak's settings from the environment (README.md beside this file). A value that is not a
 * positive whole number stops the run before anything starts: a duration read as NaN would start
 * no round and pass without having tested anything.
 */
function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${name} must be a positive whole number, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** How long new rounds are started, in seconds. */
export const DURATION_SECONDS = positiveInteger("REPLICAS_DURATION_SECONDS", 120);
/** Clients per race. */
export const CONCURRENCY = positiveInteger("REPLICAS_CONCURRENCY", 12);

/** The closing lines of a soak: its figures, every violation, and PASS or FAIL. */
export function summary(title: string, figures: string[], violations: string[]): string {
  return [
    title,
    ...figures.map((line) => `  ${line}`),
    ...violations.map((violation) => `  VIOLATION ${violation}`),
    `${violations.length === 0 ? "PASS" : "FAIL"} ${title}: ${violations.length} violation${violations.length === 1 ? "" : "s"}`,
  ].join("\n");
}
