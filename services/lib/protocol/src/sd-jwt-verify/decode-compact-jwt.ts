import { SdJwtVerificationError } from "./sd-jwt-verification-error.js";

export type JsonObject = Record<string, unknown>;

export interface DecodedJwt {
  compact: string;
  header: JsonObject;
  payload: JsonObject;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Parses base64url JSON, or undefined when it is not base64url or not JSON. */
export function decodeBase64urlJson(part: string): unknown {
  if (!BASE64URL.test(part)) return undefined;
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Splits a compact JWS into its decoded header and payload (no signature check). */
export function decodeCompactJwt(compact: string, code: string, what: string): DecodedJwt {
  const parts = compact.split(".");
  if (parts.length !== 3 || parts.some((part) => !BASE64URL.test(part)) || !parts[2]) {
    throw new SdJwtVerificationError(code, `${what} is not a compact JWS`);
  }
  const header = decodeBase64urlJson(parts[0] ?? "");
  const payload = decodeBase64urlJson(parts[1] ?? "");
  if (!isJsonObject(header)) throw new SdJwtVerificationError(code, `${what} header is not a JSON object`);
  if (!isJsonObject(payload)) throw new SdJwtVerificationError(code, `${what} payload is not a JSON object`);
  return { compact, header, payload };
}
