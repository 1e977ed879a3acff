import { z } from "zod";

/**
 * Query-string parameter schemas. A repeated parameter arrives as an array; it is refused rather
 * than guessed at. Messages complete "Invalid <parameter>: ..." (the runtime names the parameter).
 */
const once = (expected: string) => (issue: { input?: unknown }) =>
  Array.isArray(issue.input) ? "must be given once" : `must be ${expected}`;

/** Free text, at most `max` characters. */
export const zQueryText = (max: number) =>
  z.string({ error: once("a string") }).max(max, `must be at most ${max} characters`);

/** One of `values`. */
export const zQueryEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: once(`one of ${values.join(", ")}`) });

/** A decimal integer in [min, max]: digits only, no sign, exponent or fraction. */
export const zQueryInteger = (min: number, max: number) => {
  const expected = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
  return z
    .string({ error: once(expected) })
    .regex(/^\d{1,16}$/, `must be ${expected}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be ${expected}`).max(max, `must be ${expected}`));
};
