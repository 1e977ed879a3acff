import type { OutboundResponse } from "../ports.js";

export type JsonObject = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The response body as a JSON object, or undefined when it is not one. */
export function jsonObjectOf(response: OutboundResponse): JsonObject | undefined {
  try {
    const parsed: unknown = JSON.parse(response.text);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** An OAuth error response's `error` and `error_description`, shortened for a message. */
export function oauthErrorOf(response: OutboundResponse): { error?: string; description?: string } {
  const body = jsonObjectOf(response);
  const error = typeof body?.error === "string" ? body.error.slice(0, 64) : undefined;
  const description =
    typeof body?.error_description === "string"
      ? body.error_description.slice(0, 200)
      : typeof body?.message === "string"
        ? body.message.slice(0, 200)
        : undefined;
  return { ...(error ? { error } : {}), ...(description ? { description } : {}) };
}

/** `error: description` of an OAuth error response, or the HTTP status. */
export function describeFailure(response: OutboundResponse): string {
  const { error, description } = oauthErrorOf(response);
  if (error && description) return `${error}: ${description}`;
  return error ?? description ?? `HTTP ${response.status}`;
}

export const stringOf = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 ? value : undefined;
