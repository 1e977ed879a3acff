/**
 * A LIKE/ILIKE pattern matching `text` anywhere: the wildcards `%` and `_` and the escape
 * character `\` in user input are escaped so they match themselves.
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
