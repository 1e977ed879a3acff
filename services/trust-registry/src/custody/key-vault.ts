import { type KeyObject, randomUUID } from "node:crypto";
import { createLoadingCache } from "@attesto/runtime/cache";
import type { EnvelopeSealer } from "@attesto/runtime/crypto";
import { notFound } from "@attesto/runtime/errors";
import { type CustodyDb, findKey, insertKey, type KeyRow, listKeysToRewrap, updateKeyEnvelope } from "./key.store.js";
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
  /**
   * Rewraps every key not under the current KEK, and reseals format-0 rows in the current format;
   * how many rows this call changed.
   */
  rewrapAll(): Promise<number>;
}

export interface KeyVaultOptions {
  db: CustodyDb;
  /** KEY_ENCRYPTION_KEYS' sealer, the one envelope of every secret at rest. */
  sealer: EnvelopeSealer;
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

/** The envelope's context: the owner, so a sealed key copied onto another row does not open. */
export const custodyKeyContext = (tenant: string, keyId: string) => `custody-key:${tenant}/${keyId}`;

/** The PKCS#8 DER private key of a row, in either stored form. */
function openRow(sealer: EnvelopeSealer, row: KeyRow): Uint8Array {
  const owner = { tenant: row.tenant, keyId: row.key_id };
  if (row.sealed_private_key !== null)
    return sealer.open(row.sealed_private_key, custodyKeyContext(owner.tenant, owner.keyId));
  const { wrapped_dek, iv, tag, ciphertext } = row;
  if (!wrapped_dek || !iv || !tag || !ciphertext) throw new Error(`custody key ${row.key_id} has no envelope`);
  return sealer.openCustodyColumns({ kekId: row.kek_id, wrappedDek: wrapped_dek, iv, tag, ciphertext }, owner);
}

/** The row's envelope under the current KEK in the current format. */
function resealRow(sealer: EnvelopeSealer, row: KeyRow): string {
  const context = custodyKeyContext(row.tenant, row.key_id);
  if (row.sealed_private_key !== null) return sealer.rewrap(row.sealed_private_key, context);
  const secret = openRow(sealer, row);
  try {
    return sealer.seal(secret, context);
  } finally {
    secret.fill(0);
  }
}

/** Custody of private keys: sealing into envelopes, the rows that hold them, decryption and its cache. */
export function createKeyVault({ db, sealer, now, cacheSize, cacheTtlMs }: KeyVaultOptions): KeyVault {
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
      const sealed = sealer.seal(secret, custodyKeyContext(tenant, keyId));
      secret.fill(0);
      const row = {
        key_id: keyId,
        tenant,
        alg,
        public_jwk: publicJwkOf(privateKey, alg),
        kek_id: sealer.currentKeyId,
        sealed_private_key: sealed,
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
        const secret = openRow(sealer, row);
        const loaded = { held: heldKeyOf(row), privateKey: importPkcs8(secret) };
        secret.fill(0);
        return loaded;
      });
    },

    async rewrapAll() {
      let rewrapped = 0;
      let after = "";
      for (;;) {
        const rows = await listKeysToRewrap(db, sealer.currentKeyId, after, REWRAP_PAGE_SIZE);
        for (const row of rows) {
          const sealedPrivateKey = resealRow(sealer, row);
          if (await updateKeyEnvelope(db, row, { kekId: sealer.currentKeyId, sealedPrivateKey })) rewrapped += 1;
        }
        const last = rows.at(-1);
        if (!last || rows.length < REWRAP_PAGE_SIZE) return rewrapped;
        after = last.key_id;
      }
    },
  };
}
