/** What PostgreSQL cannot store (U+0000 in text) or parse (unpaired surrogates in json). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what this looks for.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The path of the first string (or key) in `value` that PostgreSQL could not store. Every
 * request's params, query and body go through it (createApp), so the path is built only for the
 * string found: the walk itself allocates nothing.
 */
export function findUnstorableText(value: unknown, path: string, depth = 0): string | undefined {
  const keys = unstorableKeys(value, depth);
  return keys === undefined ? undefined : [path, ...keys.reverse()].join(".");
}

/** The keys leading to the first unstorable string or key, innermost first; undefined when there is none. */
function unstorableKeys(value: unknown, depth: number): string[] | undefined {
  if (typeof value === "string") return UNSTORABLE.test(value) ? [] : undefined;
  if (typeof value !== "object" || value === null || depth > 32) return undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (UNSTORABLE.test(key)) return [key];
    const found = unstorableKeys(record[key], depth + 1);
    if (found) {
      found.push(key);
      return found;
    }
  }
  return undefined;
}
