import type { Kysely, Migration } from "kysely";
import { compileOnce } from "./compile-once.js";

/**
 * Single-use values (DPoP `jti`, c_nonces, attestation `jti`, ...) recorded in PostgreSQL so replay
 * protection holds across replicas. `consume` is atomic: of any number of concurrent calls with
 * the same value, exactly one returns true.
 */
export const replayGuardMigrations: Record<string, Migration> = {
  "0000_runtime_used_values": {
    async up(db) {
      await db.schema
        .createTable("used_values")
        .addColumn("namespace", "text", (c) => c.notNull())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("expires_at", "timestamptz", (c) => c.notNull())
        .addPrimaryKeyConstraint("used_values_pkey", ["namespace", "value"])
        .execute();
      await db.schema.createIndex("used_values_expires_at").on("used_values").column("expires_at").execute();
    },
  },
};

export interface UsedValueTables {
  used_values: { namespace: string; value: string; expires_at: Date };
}

export interface ReplayGuard {
  /** Records `value` as used until `expiresAt`; false when it was already used (a replay). */
  consume(namespace: string, value: string, expiresAt: Date): Promise<boolean>;
}

const PURGE_PROBABILITY = 0.01;

/**
 * The single-use insert: a row per value, returned (`value`) only for values not used before. An
 * expired record no longer blocks reuse; the upsert replaces it atomically. A store may run it as
 * part of a larger statement (a data-modifying `WITH`), with the same guarantee.
 */
export function insertUsedValues(
  db: Pick<Kysely<UsedValueTables>, "insertInto">,
  namespace: string,
  values: ReadonlyArray<{ value: string; expiresAt: Date }>,
  at: Date,
) {
  return db
    .insertInto("used_values")
    .values(values.map(({ value, expiresAt }) => ({ namespace, value, expires_at: expiresAt })))
    .onConflict((oc) =>
      oc
        .columns(["namespace", "value"])
        .doUpdateSet((eb) => ({ expires_at: eb.ref("excluded.expires_at") }))
        .where("used_values.expires_at", "<=", at),
    )
    .returning("value");
}

/** Now and then (1 %), the expired records go: callers of `insertUsedValues` call this after it. */
export async function purgeUsedValuesSometimes(db: Kysely<unknown>, at: Date): Promise<void> {
  if (Math.random() >= PURGE_PROBABILITY) return;
  await (db as unknown as Kysely<UsedValueTables>).deleteFrom("used_values").where("expires_at", "<=", at).execute();
}

/**
 * `now` is the caller's clock, the one its `expiresAt` values come from: expiry is never judged by
 * the database's clock, which may differ.
 */
export function createReplayGuard(db: Kysely<unknown>, options: { now?: () => Date } = {}): ReplayGuard {
  const tables = db as unknown as Kysely<UsedValueTables>;
  const now = options.now ?? (() => new Date());
  const insertOne = compileOnce(
    tables,
    { namespace: "string", value: "string", expiresAt: "Date", at: "Date" },
    (db, args) => insertUsedValues(db, args.namespace, [args], args.at),
  );
  return {
    async consume(namespace, value, expiresAt) {
      const at = now();
      const inserted = await insertOne.takeFirst({ namespace, value, expiresAt, at });
      await purgeUsedValuesSometimes(db, at);
      return inserted !== undefined;
    },
  };
}
