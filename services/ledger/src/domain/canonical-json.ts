import type { JsonValue } from "./json.js";

/**
 * JSON in the canonical form of RFC 8785 (JCS) for the values the ledger writes: object members
 * sorted by UTF-16 code units, no whitespace, ECMAScript number and string serialisation. The same
 * value always gives the same bytes, whatever key order PostgreSQL's jsonb hands back.
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError("canonical JSON has no representation for non-finite numbers");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const members = Object.keys(value)
    .filter((key) => value[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as JsonValue)}`);
  return `{${members.join(",")}}`;
}
