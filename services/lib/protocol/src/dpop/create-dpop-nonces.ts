import { createHmac, timingSafeEqual } from "node:crypto";
import { pooledRandomBytes } from "../random/random-pool.js";

/** RFC 9449 server nonces live this long (the root README: DPoP nonce lifetime 300 s). */
export const DEFAULT_DPOP_NONCE_LIFETIME_SECONDS = 300;
const MIN_SECRET_BYTES = 32;
const SALT_BYTES = 9;
/** Domain separation: a MAC made for another purpose under the same secret never passes as a DPoP nonce. */
const MAC_CONTEXT = "attesto/dpop-nonce/v1";
const NONCE_PATTERN = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{12})\.([A-Za-z0-9_-]{43})$/;

export interface CreateDpopNoncesOptions {
  /** HMAC-SHA256 key, at least 32 bytes (a string is used as its UTF-8 bytes). */
  secret: Uint8Array | string;
  lifetimeSeconds?: number;
  /** Clock; tests move it. */
  now?: () => Date;
}

/** Issues and checks server-provided DPoP nonces (RFC 9449 §8). */
export interface DpopNonces {
  readonly lifetimeSeconds: number;
  /** A fresh nonce, valid for `lifetimeSeconds`; safe as an HTTP header value (no spaces or quotes). */
  issue(): string;
  /** Whether `nonce` was issued with this secret and has not expired. */
  verify(nonce: string): boolean;
}

/**
 * Stateless DPoP nonces: `<expiry, base36 Unix seconds>.<salt>.<HMAC-SHA256 over both>`, all
 * base64url/base36, so every replica with the same secret accepts them without a database lookup.
 * A nonce may be used by many proofs until it expires: the proofs' `jti`s are what is single use.
 */
export function createDpopNonces(options: CreateDpopNoncesOptions): DpopNonces {
  const secret = typeof options.secret === "string" ? Buffer.from(options.secret, "utf8") : Buffer.from(options.secret);
  if (secret.length < MIN_SECRET_BYTES) throw new Error(`DPoP nonce secret must be at least ${MIN_SECRET_BYTES} bytes`);
  const lifetimeSeconds = options.lifetimeSeconds ?? DEFAULT_DPOP_NONCE_LIFETIME_SECONDS;
  if (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds < 1)
    throw new Error("lifetimeSeconds must be a positive integer");
  const now = options.now ?? (() => new Date());
  const nowSeconds = () => Math.floor(now().getTime() / 1000);
  const mac = (expiry: string, salt: string) =>
    createHmac("sha256", secret).update(`${MAC_CONTEXT}.${expiry}.${salt}`).digest();

  return {
    lifetimeSeconds,
    issue() {
      const expiry = (nowSeconds() + lifetimeSeconds).toString(36);
      const salt = pooledRandomBytes(SALT_BYTES).toString("base64url");
      return `${expiry}.${salt}.${mac(expiry, salt).toString("base64url")}`;
    },
    verify(nonce) {
      if (typeof nonce !== "string") return false;
      const match = NONCE_PATTERN.exec(nonce);
      if (!match) return false;
      const [, expiry, salt, signature] = match as unknown as [string, string, string, string];
      // Compared as text: a non-canonical base64url spelling of the right MAC (other padding bits in
      // the last character) is a different nonce, refused like any other alteration.
      const given = Buffer.from(signature, "utf8");
      const expected = Buffer.from(mac(expiry, salt).toString("base64url"), "utf8");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
      const expiresAt = Number.parseInt(expiry, 36);
      const current = nowSeconds();
      // The upper bound keeps nonces from a longer lifetime setting from outliving a shorter one.
      return current < expiresAt && expiresAt <= current + lifetimeSeconds;
    },
  };
}
