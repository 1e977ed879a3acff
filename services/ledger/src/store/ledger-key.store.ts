import type { Ed25519PrivateJwk } from "@attesto/protocol";
import type { EnvelopeSealer } from "@attesto/runtime/crypto";
import type { Kysely } from "kysely";
import type { LedgerKeyRepository } from "../domain/ports.js";
import type { LedgerKey } from "../domain/records.js";
import { jsonb } from "./jsonb.js";
import type { LedgerTables } from "./tables.js";

type Row = LedgerTables["ledger_keys"];

/** Additional data every envelope is bound to: a sealed key cannot be moved to another row. */
const sealContext = (purpose: string) => `attesto.ledger.ledger_keys:${purpose}`;

export class LedgerKeyUnavailableError extends Error {
  override name = "LedgerKeyUnavailableError";
}

/**
 * The ledger's own keys. With a sealer (KEY_ENCRYPTION_KEYS), private keys are stored as AES-256-GCM
 * envelopes, and a key found in clear or sealed under an older key-encryption key is re-sealed
 * under the current one when read (rotation: configure the new KEK first, restart, drop the old).
 * Without one they are stored in clear (development); LEDGER_SIGNING_KEY avoids storing any.
 */
export function createLedgerKeyStore(
  db: Kysely<LedgerTables>,
  now: () => Date,
  sealer?: EnvelopeSealer,
): LedgerKeyRepository {
  const seal = (purpose: string, jwk: Ed25519PrivateJwk) =>
    sealer!.seal(new TextEncoder().encode(JSON.stringify(jwk)), sealContext(purpose));

  function privateJwkOf(row: Row): Ed25519PrivateJwk {
    if (row.sealed_private_jwk === null) return row.private_jwk!;
    if (!sealer) {
      throw new LedgerKeyUnavailableError(
        `the ledger's ${row.purpose} key is encrypted at rest: KEY_ENCRYPTION_KEYS must be configured`,
      );
    }
    const plaintext = sealer.open(row.sealed_private_jwk, sealContext(row.purpose));
    return JSON.parse(new TextDecoder().decode(plaintext)) as Ed25519PrivateJwk;
  }

  const needsSealing = (row: Row) =>
    sealer !== undefined &&
    (row.sealed_private_jwk === null || sealer.keyIdOf(row.sealed_private_jwk) !== sealer.currentKeyId);

  return {
    async insertIfAbsent(key) {
      await db
        .insertInto("ledger_keys")
        .values({
          purpose: key.purpose,
          sealed_private_jwk: sealer ? seal(key.purpose, key.privateJwk) : null,
          private_jwk: sealer ? null : jsonb(key.privateJwk),
          public_jwk: jsonb(key.publicJwk),
          created_at: now(),
        })
        .onConflict((oc) => oc.column("purpose").doNothing())
        .execute();
      const row = await db
        .selectFrom("ledger_keys")
        .selectAll()
        .where("purpose", "=", key.purpose)
        .executeTakeFirstOrThrow();
      const privateJwk = privateJwkOf(row);
      if (needsSealing(row)) {
        await db
          .updateTable("ledger_keys")
          .set({ sealed_private_jwk: seal(row.purpose, privateJwk), private_jwk: null })
          .where("purpose", "=", row.purpose)
          .execute();
      }
      return { purpose: key.purpose, privateJwk, publicJwk: row.public_jwk } satisfies LedgerKey;
    },
  };
}
