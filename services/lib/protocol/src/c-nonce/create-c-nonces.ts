import { createHmac, timingSafeEqual } from "node:crypto";
import { pooledRandomBytes } from "../random/random-pool.js";
import { CNonceError } from "./c-nonce-error.js";

/** Default lifetime of a c_nonce (the root README gives DPoP nonces 300 s; c_nonces follow). */
export const DEFAULT_C_NONCE_TTL_SECONDS = 300;

/** Minimum length of the HMAC secret, in characters. */
export const MIN_C_NONCE_SECRET_LENGTH = 32;

const VERSION = 1;
const RANDOM_BYTES = 16;
const MAC_BYTES = 32;
/** version (1) | expiry in Unix seconds (uint32 BE) | random (16) */
const BODY_BYTES = 1 + 4 + RANDOM_BYTES;
/** Label bound into every MAC, so a key reused elsewhere cannot forge c_nonces. */
const MAC_LABEL = "attesto c_nonce v1";

export interface CNonce {
  /** The opaque value handed to the wallet (base64url, no padding). */
  value: string;
  expiresAt: Date;
}

/**
 * Stateless c_nonces (the root README): the expiry and 128 random bits, authenticated by
 * HMAC-SHA256 under a server secret, so the credential endpoint validates them without a database
 * lookup. Single use is the caller's concern (a replay store keyed by the value, kept until `expiresAt`).
 */
export interface CNonces {
  create(): CNonce;
  /** Checks integrity and expiry; throws CNonceError. Returns when the nonce stops being valid. */
  verify(value: string): { expiresAt: Date };
}

export interface CNonceOptions {
  secret: string;
  ttlSeconds?: number;
  /** Clock in milliseconds (tests). */
  now?: () => number;
}

export function createCNonces(options: CNonceOptions): CNonces {
  if (options.secret.length < MIN_C_NONCE_SECRET_LENGTH) {
    throw new Error(`c_nonce secret must be at least ${MIN_C_NONCE_SECRET_LENGTH} characters`);
  }
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_C_NONCE_TTL_SECONDS;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) throw new Error("c_nonce lifetime must be a positive integer");
  const now = options.now ?? Date.now;
  const key = Buffer.from(options.secret, "utf8");
  const macOf = (body: Uint8Array) => createHmac("sha256", key).update(MAC_LABEL).update(body).digest();

  return {
    create() {
      const expiresAtSeconds = Math.floor(now() / 1000) + ttlSeconds;
      const body = Buffer.alloc(BODY_BYTES);
      body.writeUInt8(VERSION, 0);
      body.writeUInt32BE(expiresAtSeconds, 1);
      pooledRandomBytes(RANDOM_BYTES).copy(body, 5);
      return {
        value: Buffer.concat([body, macOf(body)]).toString("base64url"),
        expiresAt: new Date(expiresAtSeconds * 1000),
      };
    },

    verify(value) {
      const bytes = /^[A-Za-z0-9_-]+$/.test(value) ? Buffer.from(value, "base64url") : Buffer.alloc(0);
      // Only the canonical spelling: the last character carries 2 padding bits, and a variant with
      // other padding bits decodes to the same bytes but is another string to the replay store.
      const canonical = bytes.toString("base64url") === value;
      if (!canonical || bytes.length !== BODY_BYTES + MAC_BYTES || bytes.readUInt8(0) !== VERSION) {
        throw new CNonceError("malformed", "nonce is not a c_nonce of this issuer");
      }
      const body = bytes.subarray(0, BODY_BYTES);
      if (!timingSafeEqual(bytes.subarray(BODY_BYTES), macOf(body))) {
        throw new CNonceError("bad_signature", "nonce is not a c_nonce of this issuer");
      }
      const expiresAtSeconds = body.readUInt32BE(1);
      if (expiresAtSeconds * 1000 <= now()) throw new CNonceError("expired", "nonce has expired");
      return { expiresAt: new Date(expiresAtSeconds * 1000) };
    },
  };
}
