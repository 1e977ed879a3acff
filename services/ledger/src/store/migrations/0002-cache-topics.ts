import { createCacheTopicTrigger } from "@attesto/store";
import type { Kysely, Migration } from "kysely";

/**
 * Every change of a DID (created, updated, deactivated) notifies the caches of resolved DIDs when it
 * commits (`LEDGER_DIDS_TOPIC`): a DID deactivated through one replica is seen at once by every
 * replica of every service caching it. Frozen: changes go in new migrations.
 */
export const addCacheTopics: Migration = {
  async up(db: Kysely<unknown>) {
    await createCacheTopicTrigger(db, "dids", "ledger.dids");
  },
};
