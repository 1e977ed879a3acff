import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { z } from "zod";

/** A key-encryption key: an id (stored with every envelope) and 32 secret bytes. */
export interface KeyEncryptionKey {
  id: string;
  key: Uint8Array;
}

/**
 * `KEY_ENCRYPTION_KEYS`: comma-separated `<id>:<base64url of 32 bytes>`; the first is current,
 * the others only decrypt (rotation: put the new key first, rewrap, then drop the old one).
 */
export const keyEncryptionKeysSchema = z
  .string()
  .transform((value, ctx): KeyEncryptionKey[] =>
    value.split(",").map((entry) => {
      const [id, secret] = entry.trim().split(":");
      const bytes = Buffer.from(secret ?? "", "base64url");
      if (!id || !/^[A-Za-z0-9_-]{1,64}$/.test(id) || bytes.length !== 32) {
        ctx.addIssue({ code: "custom", message: "each entry must be <id>:<base64url of 32 bytes>" });
      }
      return { id: id ?? "", key: new Uint8Array(bytes) };
    }),
  )
  .refine((keys) => new Set(keys.map((k) => k.id)).size === keys.length, "key ids must be unique");

export class EnvelopeError extends Error {
  override name = "EnvelopeError";
}

export interface EnvelopeSealer {
  /** Id of the key-encryption key new envelopes are sealed under. */
  currentKeyId: string;
  /** Encrypts under a fresh data key wrapped by the current KEK; `context` is bound as AAD. */
  seal(plaintext: Uint8Array, context: string): string;
  /** Decrypts; fails on tampering, a different context or an unknown KEK. */
  open(envelope: string, context: string): Uint8Array;
  /** The KEK id an envelope was sealed under. */
  keyIdOf(envelope: string): string;
}

const VERSION = "v1";

function gcmEncrypt(key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array) {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return Buffer.concat([iv, ciphertext]);
}

function gcmDecrypt(key: Uint8Array, sealed: Buffer, aad: Uint8Array): Buffer {
  const iv = sealed.subarray(0, 12);
  const tag = sealed.subarray(sealed.length - 16);
  const body = sealed.subarray(12, sealed.length - 16);
  const decipher = createDecipheriv("aes-256-gcm", key, iv).setAAD(aad).setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]);
}

/**
 * AES-256-GCM envelope encryption for secrets at rest (private keys). Each secret gets its own
 * random data key; the data key is wrapped (AES-256-GCM) under the current key-encryption key.
 * Format: `v1.<kek id>.<wrapped data key>.<ciphertext>` (base64url parts, IVs and tags inside).
 */
export function createEnvelopeSealer(keys: KeyEncryptionKey[]): EnvelopeSealer {
  const current = keys[0];
  if (!current) throw new EnvelopeError("at least one key-encryption key is required");
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  const parse = (envelope: string) => {
    const [version, kekId, wrapped, body] = envelope.split(".");
    if (version !== VERSION || !kekId || !wrapped || !body) throw new EnvelopeError("malformed envelope");
    return { kekId, wrapped: Buffer.from(wrapped, "base64url"), body: Buffer.from(body, "base64url") };
  };
  return {
    currentKeyId: current.id,
    seal(plaintext, context) {
      const dataKey = randomBytes(32);
      const aad = Buffer.from(`${current.id}|${context}`);
      const wrapped = gcmEncrypt(current.key, dataKey, aad);
      const body = gcmEncrypt(dataKey, plaintext, Buffer.from(context));
      dataKey.fill(0);
      return [VERSION, current.id, wrapped.toString("base64url"), body.toString("base64url")].join(".");
    },
    open(envelope, context) {
      const { kekId, wrapped, body } = parse(envelope);
      const kek = byId.get(kekId);
      if (!kek) throw new EnvelopeError(`key-encryption key '${kekId}' is not configured`);
      try {
        const dataKey = gcmDecrypt(kek, wrapped, Buffer.from(`${kekId}|${context}`));
        const plaintext = gcmDecrypt(dataKey, body, Buffer.from(context));
        dataKey.fill(0);
        return new Uint8Array(plaintext);
      } catch {
        throw new EnvelopeError("envelope cannot be opened (tampered, wrong context or wrong key)");
      }
    },
    keyIdOf: (envelope) => parse(envelope).kekId,
  };
}
