import { type KeyObject, randomUUID } from "node:crypto";
import { createLoadingCache, notFound } from "@attesto/runtime";
import { type Envelope, type KeyRing, openEnvelope, rewrapEnvelope, sealEnvelope } from "./envelope.js";
import {
  type CustodyDb,
  findKey,
  insertKey,
  type KeyRow,
  listKeysNotWrappedBy,
  updateKeyWrapping,
} from "./key.store.js";
import type { HeldKey, KeyAlgorithm } from "./key-custody.js";
import { exportPkcs8, importPkcs8, publicJwkOf } from "./key-material.js";

export interface LoadedKey {
  held: HeldKey;
  privateKey: KeyObject;
}

export interface KeyVault {
  /** Encrypts and stores a private key for a tenant (on `db`, which may be a transaction). */
  hold(db: CustodyDb, tenant: string, alg: KeyAlgorithm, privateKey: KeyObject): Promise<HeldKey>;
  /** The tenant's key; another tenant's or an unknown key is "Key not found". */
  describe(tenant: string, keyId: string): Promise<HeldKey>;
  /** The tenant's key with its decrypted private key (cached). */
  load(tenant: string, keyId: string): Promise<LoadedKey>;
  /** Rewraps every DEK not under the current KEK; how many were rewrapped by this call. */
  rewrapAll(): Promise<number>;
}

export interface KeyVaultOptions {
  db: CustodyDb;
  ring: KeyRing;
  now: () => Date;
  /** How many decrypted private keys to keep in memory. */
  cacheSize: number;
  /** How long a decrypted private key stays in memory (default DEFAULT_KEY_CACHE_TTL_MS). */
  cacheTtlMs?: number;
}

/**
 * Decrypted private keys are re-opened from their envelope at least this often by default, so a key
 * is re-read (and re-decrypted) from the database at least that often. Entries are only ever
 * dropped, never logged or persisted.
 */
export const DEFAULT_KEY_CACHE_TTL_MS = 10 * 60_000;

const REWRAP_PAGE_SIZE = 100;

const keyNotFound = () => notFound("Key not found");

const heldKeyOf = (row: KeyRow): HeldKey => ({
  keyId: row.key_id,
  tenant: row.tenant,
  alg: row.alg,
  publicJwk: row.public_jwk,
  createdAt: row.created_at,
});

const envelopeOf = (row: KeyRow): Envelope => ({
  kekId: row.kek_id,
  wrappedDek: row.wrapped_dek,
  iv: row.iv,
  tag: row.tag,
  ciphertext: row.ciphertext,
});

/** Custody of private keys: sealing into envelopes, the rows that hold them, decryption and its cache. */
export function createKeyVault({ db, ring, now, cacheSize, cacheTtlMs }: KeyVaultOptions): KeyVault {
  // Keyed by owner and key id: only the owning tenant's load fills an entry.
  const cache = createLoadingCache<LoadedKey>({
    max: cacheSize,
    ttlMs: cacheTtlMs ?? DEFAULT_KEY_CACHE_TTL_MS,
    now: () => now().getTime(),
  });
  const cacheKey = (tenant: string, keyId: string) => `${tenant}\n${keyId}`;

  async function findOwned(tenant: string, keyId: string): Promise<KeyRow> {
    const row = await findKey(db, keyId);
    if (!row || row.tenant !== tenant) throw keyNotFound();
    return row;
  }

  return {
    async hold(executor, tenant, alg, privateKey) {
      const keyId = randomUUID();
      const secret = exportPkcs8(privateKey);
      const envelope = sealEnvelope(ring, { tenant, keyId }, secret);
      secret.fill(0);
      const row = {
        key_id: keyId,
        tenant,
        alg,
        public_jwk: publicJwkOf(privateKey, alg),
        kek_id: envelope.kekId,
        wrapped_dek: envelope.wrappedDek,
        iv: envelope.iv,
        tag: envelope.tag,
        ciphertext: envelope.ciphertext,
        created_at: now(),
      };
      await insertKey(executor, row);
      return { keyId, tenant, alg, publicJwk: row.public_jwk, createdAt: row.created_at };
    },

    async describe(tenant, keyId) {
      const cached = cache.peek(cacheKey(tenant, keyId));
      if (cached) return (await cached).held;
      return heldKeyOf(await findOwned(tenant, keyId));
    },

    load(tenant, keyId) {
      return cache.get(cacheKey(tenant, keyId), async () => {
        const row = await findOwned(tenant, keyId);
        const secret = openEnvelope(ring, { tenant, keyId }, envelopeOf(row));
        const loaded = { held: heldKeyOf(row), privateKey: importPkcs8(secret) };
        secret.fill(0);
        return loaded;
      });
    },

    async rewrapAll() {
      let rewrapped = 0;
      let after = "";
      for (;;) {
        const rows = await listKeysNotWrappedBy(db, ring.current.id, after, REWRAP_PAGE_SIZE);
        for (const row of rows) {
          const owner = { tenant: row.tenant, keyId: row.key_id };
          const envelope = rewrapEnvelope(ring, owner, envelopeOf(row));
          if (await updateKeyWrapping(db, row.key_id, row.kek_id, envelope)) rewrapped += 1;
        }
        const last = rows.at(-1);
        if (!last || rows.length < REWRAP_PAGE_SIZE) return rewrapped;
        after = last.key_id;
      }
    },
  };
}
