import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** 24 random bytes: the 48 lowercase hex characters of the key's last segment. */
const API_KEY_RANDOM_BYTES = 24;

export interface ApiKeyFormat {
  /** e.g. "attesto" */
  prefix: string;
  /** e.g. "production" */
  environment: string;
}

/** A fresh API key `<prefix>_<environment>_<48 lowercase hex>` (this service's README); shown once, never stored. */
export function generateApiKey({ prefix, environment }: ApiKeyFormat): string {
  return `${prefix}_${environment}_${randomBytes(API_KEY_RANDOM_BYTES).toString("hex")}`;
}

/** Whether a presented value has the shape of one of our keys (checked before any lookup). */
export function isWellFormedApiKey(value: string, { prefix, environment }: ApiKeyFormat): boolean {
  const expectedPrefix = `${prefix}_${environment}_`;
  return (
    value.length === expectedPrefix.length + API_KEY_RANDOM_BYTES * 2 &&
    value.startsWith(expectedPrefix) &&
    /^[0-9a-f]+$/.test(value.slice(expectedPrefix.length))
  );
}

/** What is stored instead of the key: its SHA-256, lowercase hex. */
export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}

/** Compares two SHA-256 hex digests in constant time (never with `===`). */
export function apiKeyHashesMatch(presentedHash: string, storedHash: string): boolean {
  const presented = Buffer.from(presentedHash, "hex");
  const stored = Buffer.from(storedHash, "hex");
  if (presented.length !== 32 || stored.length !== 32) return false;
  return timingSafeEqual(presented, stored);
}
