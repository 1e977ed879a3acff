import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM envelope encryption of private keys at rest.
 *
 * Each secret is encrypted under a fresh random data-encryption key (DEK); the DEK is itself
 * encrypted (wrapped) with AES-256-GCM under a key-encryption key (KEK) from configuration.
 * Rotating the KEK only rewraps the 32-byte DEK; the secret's ciphertext never changes.
 *
 * Both layers authenticate associated data naming the owner (tenant, key id), so a row's
 * ciphertext or wrapped DEK copied onto another row fails to decrypt.
 *
 * Layout:
 * - `iv` (12 bytes), `tag` (16 bytes), `ciphertext`: the secret under the DEK.
 * - `wrappedDek` (60 bytes): iv (12) || AES-256-GCM(KEK, DEK) (32) || tag (16).
 * - `kekId`: which KEK wrapped the DEK.
 */
export interface KeyEncryptionKey {
  id: string;
  /** 32 bytes. */
  key: Uint8Array;
}

export interface Envelope {
  kekId: string;
  wrappedDek: Uint8Array;
  iv: Uint8Array;
  tag: Uint8Array;
  ciphertext: Uint8Array;
}

/** Whom an envelope belongs to; bound into both layers as associated data. */
export interface EnvelopeOwner {
  tenant: string;
  keyId: string;
}

/** A KEK named by a row is not configured (an old KEK removed before rewrapping finished). */
export class UnknownKeyEncryptionKeyError extends Error {
  override name = "UnknownKeyEncryptionKeyError";
  constructor(readonly kekId: string) {
    super(`Key-encryption key '${kekId}' is not configured; keep it in KEY_ENCRYPTION_KEYS until keys are rewrapped`);
  }
}

/** Decryption failed: wrong key, tampered data or an envelope moved to another owner. */
export class EnvelopeIntegrityError extends Error {
  override name = "EnvelopeIntegrityError";
}

const ALGORITHM = "aes-256-gcm";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const WRAPPED_DEK_BYTES = IV_BYTES + KEY_BYTES + TAG_BYTES;

/** Unambiguous associated data (JSON array: no separator can be forged inside a name). */
const secretAad = (owner: EnvelopeOwner) =>
  Buffer.from(JSON.stringify(["attesto.custody.secret.v1", owner.tenant, owner.keyId]), "utf8");
const dekAad = (owner: EnvelopeOwner, kekId: string) =>
  Buffer.from(JSON.stringify(["attesto.custody.dek.v1", kekId, owner.tenant, owner.keyId]), "utf8");

function encrypt(key: Uint8Array, plaintext: Uint8Array, aad: Buffer) {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES }).setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, ciphertext, tag: cipher.getAuthTag() };
}

function decrypt(key: Uint8Array, parts: { iv: Uint8Array; ciphertext: Uint8Array; tag: Uint8Array }, aad: Buffer) {
  if (parts.iv.length !== IV_BYTES || parts.tag.length !== TAG_BYTES) {
    throw new EnvelopeIntegrityError("envelope is malformed");
  }
  try {
    const decipher = createDecipheriv(ALGORITHM, key, parts.iv, { authTagLength: TAG_BYTES })
      .setAAD(aad)
      .setAuthTag(parts.tag);
    return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]);
  } catch (cause) {
    throw new EnvelopeIntegrityError("envelope failed authentication", { cause });
  }
}

function wrapDek(kek: KeyEncryptionKey, dek: Uint8Array, owner: EnvelopeOwner): Uint8Array {
  const { iv, ciphertext, tag } = encrypt(kek.key, dek, dekAad(owner, kek.id));
  return Buffer.concat([iv, ciphertext, tag]);
}

function unwrapDek(kek: KeyEncryptionKey, wrappedDek: Uint8Array, owner: EnvelopeOwner): Buffer {
  if (wrappedDek.length !== WRAPPED_DEK_BYTES) throw new EnvelopeIntegrityError("wrapped key is malformed");
  const bytes = Buffer.from(wrappedDek);
  return decrypt(
    kek.key,
    {
      iv: bytes.subarray(0, IV_BYTES),
      ciphertext: bytes.subarray(IV_BYTES, IV_BYTES + KEY_BYTES),
      tag: bytes.subarray(IV_BYTES + KEY_BYTES),
    },
    dekAad(owner, kek.id),
  );
}

/** The configured KEKs, the first being current. */
export class KeyRing {
  readonly current: KeyEncryptionKey;
  private readonly byId: Map<string, KeyEncryptionKey>;

  constructor(keys: readonly KeyEncryptionKey[]) {
    const [current] = keys;
    if (!current) throw new Error("at least one key-encryption key is required");
    for (const kek of keys) {
      if (kek.key.length !== KEY_BYTES) throw new Error(`key-encryption key '${kek.id}' must be 32 bytes`);
    }
    this.byId = new Map(keys.map((kek) => [kek.id, kek]));
    if (this.byId.size !== keys.length) throw new Error("key-encryption key ids must be unique");
    this.current = current;
  }

  get(kekId: string): KeyEncryptionKey {
    const kek = this.byId.get(kekId);
    if (!kek) throw new UnknownKeyEncryptionKeyError(kekId);
    return kek;
  }
}

/** Encrypts a secret under a fresh DEK wrapped by the current KEK. */
export function sealEnvelope(ring: KeyRing, owner: EnvelopeOwner, secret: Uint8Array): Envelope {
  const dek = randomBytes(KEY_BYTES);
  try {
    const { iv, ciphertext, tag } = encrypt(dek, secret, secretAad(owner));
    return { kekId: ring.current.id, wrappedDek: wrapDek(ring.current, dek, owner), iv, tag, ciphertext };
  } finally {
    dek.fill(0);
  }
}

/** Decrypts a secret with the KEK the envelope names. */
export function openEnvelope(ring: KeyRing, owner: EnvelopeOwner, envelope: Envelope): Buffer {
  const dek = unwrapDek(ring.get(envelope.kekId), envelope.wrappedDek, owner);
  try {
    return decrypt(dek, envelope, secretAad(owner));
  } finally {
    dek.fill(0);
  }
}

/** The same envelope with its DEK rewrapped under the current KEK (the ciphertext is unchanged). */
export function rewrapEnvelope(ring: KeyRing, owner: EnvelopeOwner, envelope: Envelope): Envelope {
  if (envelope.kekId === ring.current.id) return envelope;
  const dek = unwrapDek(ring.get(envelope.kekId), envelope.wrappedDek, owner);
  try {
    // Prove the DEK still opens the secret before the old wrapping is thrown away.
    decrypt(dek, envelope, secretAad(owner)).fill(0);
    return { ...envelope, kekId: ring.current.id, wrappedDek: wrapDek(ring.current, dek, owner) };
  } finally {
    dek.fill(0);
  }
}
