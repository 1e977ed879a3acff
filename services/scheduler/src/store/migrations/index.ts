import type { Migrations } from "@attesto/store";
import { createNotaryTables } from "./0001-notary.js";
import { addOfferId } from "./0002-offer-id.js";
import { createEvmTransactions } from "./0003-evm-transactions.js";

/** Migrations of the scheduler schema, applied in name order at start-up. The job queue's schema is pg-boss's own. */
export const migrations: Migrations = {
  "0001_notary": createNotaryTables,
  "0002_offer_id": addOfferId,
  "0003_evm_transactions": createEvmTransactions,
};
