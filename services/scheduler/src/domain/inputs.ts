import { badRequest } from "@attesto/runtime/errors";

const MAX_TENANT_LENGTH = 100;

/** The tenant an internal caller names, normalized (trimmed, lowercase); 400 when empty or too long. */
export function requireTenant(raw: string): string {
  const tenant = raw.trim().toLowerCase();
  if (!tenant || tenant.length > MAX_TENANT_LENGTH) {
    throw badRequest(`tenant is required (at most ${MAX_TENANT_LENGTH} characters)`);
  }
  return tenant;
}

/** `text` parsed as a JSON object of at most `maxBytes` UTF-8 bytes; 400 naming `field` otherwise. */
export function parseJsonObject(text: string, field: string, maxBytes: number): Record<string, unknown> {
  if (Buffer.byteLength(text, "utf8") > maxBytes) throw badRequest(`${field} must be at most ${maxBytes} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(`${field} must be a JSON object`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest(`${field} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}
