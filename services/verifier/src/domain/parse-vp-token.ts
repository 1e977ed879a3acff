import type { DcqlQueryDefinition } from "@attesto/protocol";
import { findUnstorableText, InvalidRequest } from "@attesto/runtime/errors";

/** Presentations of a vp_token, keyed by DCQL credential query id, in the order given. */
export type VpToken = Record<string, unknown[]>;

/** More presentations than this in one response are refused outright. */
export const MAX_PRESENTATIONS = 20;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function fromObject(value: Record<string, unknown>): VpToken {
  const token: VpToken = {};
  let count = 0;
  for (const [id, entry] of Object.entries(value)) {
    // Older wallets send one presentation per query instead of an array of them.
    const presentations = Array.isArray(entry) ? entry : [entry];
    count += presentations.length;
    token[id] = presentations;
  }
  if (count > MAX_PRESENTATIONS)
    throw new InvalidRequest(`vp_token holds more than ${MAX_PRESENTATIONS} presentations`);
  return token;
}

/**
 * The vp_token of a response (OID4VP 1.0 §8.1): a JSON object keyed by credential query id whose
 * values are arrays of presentations. Accepted as well: the object as JSON text (form posts), a
 * value that is a single presentation rather than an array, and, for a query with one credential
 * query, a bare SD-JWT string (or that string JSON-encoded), as older wallets send.
 */
export function parseVpToken(raw: unknown, query: DcqlQueryDefinition): VpToken {
  let value = raw;
  if (typeof value === "string") {
    const text = value.trim();
    if (text.startsWith("{") || text.startsWith('"') || text.startsWith("[")) {
      try {
        value = JSON.parse(text);
      } catch {
        throw new InvalidRequest("vp_token is not valid JSON");
      }
    }
  }
  const unstorable = findUnstorableText(value, "vp_token");
  if (unstorable) throw new InvalidRequest(`${unstorable} must not contain NUL characters or unpaired surrogates`);
  if (typeof value === "string") {
    const only = query.credentials.length === 1 ? query.credentials[0] : undefined;
    if (!only) throw new InvalidRequest("vp_token must be a JSON object keyed by credential query id");
    if (value.trim() === "") throw new InvalidRequest("vp_token is empty");
    return { [only.id]: [value.trim()] };
  }
  if (!isObject(value)) throw new InvalidRequest("vp_token must be a JSON object keyed by credential query id");
  return fromObject(value);
}
