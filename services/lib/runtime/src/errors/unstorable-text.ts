/** What PostgreSQL cannot store (U+0000 in text) or parse (unpaired surrogates in json). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what this looks for.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string (or key) in `value` that PostgreSQL could not store. */
export function findUnstorableText(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === "string") return UNSTORABLE.test(value) ? path : undefined;
  if (typeof value !== "object" || value === null || depth > 32) return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (UNSTORABLE.test(key)) return `${path}.${key}`;
    const found = findUnstorableText(item, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}
