import { type Kysely, type Migration, sql } from "kysely";

/**
 * LEDGER_BACKEND=evm: every signed anchoring transaction, written before it is broadcast, and the
 * next nonce of each signer. A batch keeps one nonce (replacements re-sign the same nonce), so at
 * most one of its transactions can ever be mined.
 */
export const createEvmTransactions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("evm_transactions")
      .addColumn("hash", "text", (c) => c.primaryKey())
      .addColumn("batch_id", "uuid", (c) => c.notNull().references("batches.batch_id"))
      .addColumn("chain_id", "bigint", (c) => c.notNull())
      .addColumn("sender", "text", (c) => c.notNull())
      .addColumn("nonce", "bigint", (c) => c.notNull())
      .addColumn("raw", "text", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.createIndex("evm_transactions_batch").on("evm_transactions").column("batch_id").execute();
    await db.schema
      .createIndex("evm_transactions_sender_nonce")
      .on("evm_transactions")
      .columns(["chain_id", "sender", "nonce"])
      .execute();
    await db.schema
      .createTable("evm_nonces")
      .addColumn("chain_id", "bigint", (c) => c.notNull())
      .addColumn("sender", "text", (c) => c.notNull())
      .addColumn("next_nonce", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("evm_nonces_pkey", ["chain_id", "sender"])
      .execute();
  },
};
