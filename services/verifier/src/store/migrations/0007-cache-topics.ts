import { createCacheTopicTrigger } from "@attesto/store";
import type { Kysely, Migration } from "kysely";

/**
 * Every change of a verifier policy notifies the caches of it when it commits
 * (`VERIFIER_POLICIES_TOPIC`): a policy applied or deleted through one replica is used at once by
 * every replica. Frozen: changes go in new migrations.
 */
export const addCacheTopics: Migration = {
  async up(db: Kysely<unknown>) {
    await createCacheTopicTrigger(db, "verifier_policies", "verifier.verifier-policies");
  },
};
