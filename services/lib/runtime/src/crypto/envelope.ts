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
  /** Encrypts under a fresh data key wrapped by the current KEK; `context` (the owner) is bound as AAD. */
  seal(plaintext: Uint8Array, context: string): string;
  /** Decrypts; fails on tampering, a different context or an unknown KEK. */
  open(envelope: string, context: string): Uint8Array;
  /**
   * The same envelope with its data key rewrapped under the current KEK (the ciphertext is kept);
   * the envelope itself when it already is. Fails, changing nothing, when it does not open.
   */
  rewrap(envelope: string, context: string): string;
  /** The KEK id an envelope was sealed under. */
  keyIdOf(envelope: string): string;
  /**
   * Opens the trust registry's former column layout of custody keys (rows written before its
   * migration 0104): read only, RewrapKeys reseals such rows in the current format.
   */
  openCustodyColumns(columns: CustodyColumns, owner: { tenant: string; keyId: string }): Uint8Array;
}

/**
 * Format version 0, the former custody_keys columns: `iv`, `tag`, `ciphertext` (the secret under the
 * data key) and `wrappedDek` = iv (12) || AES-256-GCM(KEK, data key) (32) || tag (16), AAD JSON
 * arrays naming purpose, KEK and owner.
 */
export interface CustodyColumns {
  kekId: string;
  wrappedDek: Uint8Array;
  iv: Uint8Array;
  tag: Uint8Array;
  ciphertext: Uint8Array;
}

const VERSION = "v1";

const IV_BYTES = 12;
const DATA_KEY_BYTES = 32;

function gcmEncrypt(key: Uint8Array, iv: Uint8Array, plaintext: Uint8Array, aad: Uint8Array) {
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
 * The one AES-256-GCM envelope for secrets at rest (private keys, webhook secrets, pre-authorized
 * codes, held credentials). Each secret gets its own random data key; the data key is wrapped
 * (AES-256-GCM) under the current key-encryption key.
 * Format `v1.<kek id>.<wrapped data key>.<ciphertext>` (base64url parts, IVs and tags inside); the
 * wrapped key's AAD is `<kek id>|<context>`, the ciphertext's `<context>`, where the context names
 * the owner (e.g. `webhook:<tenant>`), so an envelope copied onto another row does not open.
 * KEK ids are `[A-Za-z0-9_-]`, so `|` cannot be forged inside them.
 */
export function createEnvelopeSealer(keys: KeyEncryptionKey[]): EnvelopeSealer {
  const current = keys[0];
  if (!current) throw new EnvelopeError("at least one key-encryption key is required");
  for (const kek of keys) {
    if (kek.key.length !== 32) throw new EnvelopeError(`key-encryption key '${kek.id}' must be 32 bytes`);
  }
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  if (byId.size !== keys.length) throw new EnvelopeError("key-encryption key ids must be unique");
  const kekOf = (kekId: string) => {
    const kek = byId.get(kekId);
    if (!kek) {
      throw new EnvelopeError(
        `Key-encryption key '${kekId}' is not configured; keep it in KEY_ENCRYPTION_KEYS until every envelope under it is rewrapped`,
      );
    }
    return kek;
  };
  const parse = (envelope: string) => {
    const [version, kekId, wrapped, body, ...rest] = envelope.split(".");
    if (version !== VERSION || !kekId || !wrapped || !body || rest.length > 0) {
      throw new EnvelopeError("malformed envelope");
    }
    return { kekId, wrapped: Buffer.from(wrapped, "base64url"), body: Buffer.from(body, "base64url") };
  };
  const unwrap = (kekId: string, wrapped: Buffer, context: string) =>
    gcmDecrypt(kekOf(kekId), wrapped, Buffer.from(`${kekId}|${context}`));
  const failed = () => new EnvelopeError("envelope cannot be opened (tampered, wrong context or wrong key)");
  return {
    currentKeyId: current.id,
    seal(plaintext, context) {
      // The data key and both IVs from one CSPRNG call.
      const random = randomBytes(DATA_KEY_BYTES + 2 * IV_BYTES);
      const dataKey = random.subarray(0, DATA_KEY_BYTES);
      const aad = Buffer.from(`${current.id}|${context}`);
      const wrapped = gcmEncrypt(current.key, random.subarray(DATA_KEY_BYTES, DATA_KEY_BYTES + IV_BYTES), dataKey, aad);
      const body = gcmEncrypt(dataKey, random.subarray(DATA_KEY_BYTES + IV_BYTES), plaintext, Buffer.from(context));
      random.fill(0);
      return [VERSION, current.id, wrapped.toString("base64url"), body.toString("base64url")].join(".");
    },
    open(envelope, context) {
      const { kekId, wrapped, body } = parse(envelope);
      kekOf(kekId);
      try {
        const dataKey = unwrap(kekId, wrapped, context);
        const plaintext = gcmDecrypt(dataKey, body, Buffer.from(context));
        dataKey.fill(0);
        return new Uint8Array(plaintext);
      } catch {
        throw failed();
      }
    },
    rewrap(envelope, context) {
      const { kekId, wrapped, body } = parse(envelope);
      if (kekId === current.id) return envelope;
      kekOf(kekId);
      let dataKey: Buffer;
      try {
        dataKey = unwrap(kekId, wrapped, context);
        // Prove the data key still opens the secret before the old wrapping is thrown away.
        gcmDecrypt(dataKey, body, Buffer.from(context)).fill(0);
      } catch {
        throw failed();
      }
      const rewrapped = gcmEncrypt(
        current.key,
        randomBytes(IV_BYTES),
        dataKey,
        Buffer.from(`${current.id}|${context}`),
      );
      dataKey.fill(0);
      return [VERSION, current.id, rewrapped.toString("base64url"), body.toString("base64url")].join(".");
    },
    keyIdOf: (envelope) => parse(envelope).kekId,
    openCustodyColumns(columns, owner) {
      const kek = kekOf(columns.kekId);
      const label = (purpose: string, ...rest: string[]) =>
        Buffer.from(JSON.stringify([`attesto.custody.${purpose}.v1`, ...rest, owner.tenant, owner.keyId]), "utf8");
      try {
        const wrappedDek = Buffer.from(columns.wrappedDek);
        const dataKey = gcmDecrypt(kek, wrappedDek, label("dek", columns.kekId));
        const sealed = Buffer.concat([
          Buffer.from(columns.iv),
          Buffer.from(columns.ciphertext),
          Buffer.from(columns.tag),
        ]);
        const plaintext = gcmDecrypt(dataKey, sealed, label("secret"));
        dataKey.fill(0);
        return new Uint8Array(plaintext);
      } catch {
        throw failed();
      }
    },
  };
}
