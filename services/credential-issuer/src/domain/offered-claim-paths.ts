/**
 * The claims an offer carries, as paths of object keys from the credential's root, never their
 * values: what the consent page lists. A path ends at a value that is not a plain object (a string,
 * a number, an array...); an empty object is a claim of its own.
 */
export function offeredClaimPaths(claims: Record<string, unknown>): string[][] {
  const paths: string[][] = [];
  const visit = (value: unknown, path: string[]) => {
    const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
    const entries = isObject ? Object.entries(value as Record<string, unknown>) : [];
    if (entries.length === 0) {
      if (path.length > 0) paths.push(path);
      return;
    }
    for (const [key, inner] of entries) visit(inner, [...path, key]);
  };
  visit(claims, []);
  return paths;
}
