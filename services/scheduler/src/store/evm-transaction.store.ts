import type { Kysely } from "kysely";
import type { EvmTransaction, EvmTransactionStore } from "../domain/ports.js";
import type { Clock, SchedulerDb } from "./job-sender.js";

const columns = ["hash", "batch_id", "nonce", "raw", "created_at"] as const;

const toTransaction = (row: {
  hash: string;
  batch_id: string;
  nonce: string;
  raw: string;
  created_at: Date;
}): EvmTransaction => ({
  hash: row.hash,
  batchId: row.batch_id,
  nonce: Number(row.nonce),
  raw: row.raw,
  createdAt: row.created_at,
});

/** Anchoring transactions of one signer on one chain (`database` is bound to the service's schema). */
export function createEvmTransactionStore(
  database: Kysely<unknown>,
  signer: { chainId: number; sender: string },
  now: Clock,
): EvmTransactionStore {
  const db = database as SchedulerDb;
  const { chainId, sender } = signer;
  const insert = (trx: SchedulerDb, batchId: string, nonce: number, signed: { hash: string; raw: string }) =>
    trx
      .insertInto("evm_transactions")
      .values({
        hash: signed.hash,
        batch_id: batchId,
        chain_id: chainId,
        sender,
        nonce,
        raw: signed.raw,
        created_at: now(),
      })
      .returning(columns)
      .executeTakeFirstOrThrow();

  return {
    async listForBatch(batchId) {
      const rows = await db
        .selectFrom("evm_transactions")
        .select(columns)
        .where("batch_id", "=", batchId)
        .orderBy("created_at")
        .orderBy("hash")
        .execute();
      return rows.map(toTransaction);
    },

    addWithNewNonce(batchId, knownCount, chainNonce, sign) {
      return db.transaction().execute(async (trx) => {
        await trx
          .insertInto("evm_nonces")
          .values({ chain_id: chainId, sender, next_nonce: 0 })
          .onConflict((oc) => oc.doNothing())
          .execute();
        // The signer's lock: one nonce at a time across attempts and replicas.
        const { next_nonce } = await trx
          .selectFrom("evm_nonces")
          .select("next_nonce")
          .where("chain_id", "=", String(chainId))
          .where("sender", "=", sender)
          .forUpdate()
          .executeTakeFirstOrThrow();
        const { count } = await trx
          .selectFrom("evm_transactions")
          .select((eb) => eb.fn.countAll<string>().as("count"))
          .where("batch_id", "=", batchId)
          .executeTakeFirstOrThrow();
        if (Number(count) !== knownCount) return undefined;
        const nonce = Math.max(Number(next_nonce), chainNonce);
        const row = await insert(trx, batchId, nonce, await sign(nonce));
        await trx
          .updateTable("evm_nonces")
          .set({ next_nonce: nonce + 1 })
          .where("chain_id", "=", String(chainId))
          .where("sender", "=", sender)
          .execute();
        return toTransaction(row);
      });
    },

    async addReplacement(batchId, nonce, signed) {
      return toTransaction(await insert(db, batchId, nonce, signed));
    },

    async newestPerNonce(from, to) {
      if (to <= from) return [];
      const rows = await db
        .selectFrom("evm_transactions")
        .select(columns)
        .distinctOn("nonce")
        .where("chain_id", "=", String(chainId))
        .where("sender", "=", sender)
        .where("nonce", ">=", from as never)
        .where("nonce", "<", to as never)
        .orderBy("nonce")
        .orderBy("created_at", "desc")
        .execute();
      return rows.map(toTransaction);
    },
  };
}
