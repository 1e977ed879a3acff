import { createCacheTopicTrigger } from "@attesto/store";
import type { Kysely, Migration } from "kysely";

/**
 * Every change of an issuer configuration notifies the caches of it when it commits
 * (`ISSUER_CONFIGURATIONS_TOPIC`): a configuration applied through one replica is used at once by
 * every replica. Frozen: changes go in new migrations.
 */
export const addCacheTopics: Migration = {
  async up(db: Kysely<unknown>) {
    await createCacheTopicTrigger(db, "issuer_configurations", "credential-issuer.issuer-configurations");
  },
};
