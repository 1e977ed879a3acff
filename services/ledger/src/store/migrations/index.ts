import type { Migrations } from "@attesto/store";
import { createLedger } from "./0001-ledger.js";
import { addCacheTopics } from "./0002-cache-topics.js";

/** Migrations of the ledger schema, applied in name order at start-up. */
export const migrations: Migrations = {
  "0001_ledger": createLedger,
  "0002_cache_topics": addCacheTopics,
};
