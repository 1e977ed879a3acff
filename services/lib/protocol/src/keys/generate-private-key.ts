import { createPrivateKey, generateKeyPairSync, type KeyObject } from "node:crypto";

/**
 * A new Ed25519 or P-256 private key, as a KeyObject that shares nothing with its generation.
 *
 * `generateKeyPairSync(...).privateKey` shares its key, and that key's lock, with the generation
 * job object, which the garbage collector destroys some time later. On Node.js 20, exporting the
 * key as a JWK allocates strings while holding the lock; a collection in that moment destroys the
 * job, whose destructor takes the same lock on the same thread, and the process hangs for good
 * (seen in CI: `ExportJWKEdKey` -> GC -> `~KeyGenJob` -> `pthread_mutex_lock`). Generating the key
 * as PKCS#8 bytes and importing them gives a key with a lock of its own.
 */
export function generatePrivateKey(type: "ed25519" | "p256"): KeyObject {
  const privateKeyEncoding = { format: "der", type: "pkcs8" } as const;
  const publicKeyEncoding = { format: "der", type: "spki" } as const;
  const der: Buffer =
    type === "ed25519"
      ? generateKeyPairSync("ed25519", { privateKeyEncoding, publicKeyEncoding }).privateKey
      : generateKeyPairSync("ec", { namedCurve: "P-256", privateKeyEncoding, publicKeyEncoding }).privateKey;
  return createPrivateKey({ key: der, format: "der", type: "pkcs8" });
}
