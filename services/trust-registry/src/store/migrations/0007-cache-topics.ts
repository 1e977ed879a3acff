import { createCacheTopicTrigger } from "@attesto/store";
import type { Kysely, Migration } from "kysely";

/**
 * Every change of a tenant, its API keys, its credential configurations or its DIDs notifies the other
 * services' caches when it commits (`@attesto/tenant-client` TRUST_REGISTRY_TOPICS names the same
 * topics): a revoked key or a deactivated tenant is refused at once by every replica. Frozen:
 * changes go in new migrations.
 */
export const addCacheTopics: Migration = {
  async up(db: Kysely<unknown>) {
    await createCacheTopicTrigger(db, "tenants", "trust-registry.tenants");
    await createCacheTopicTrigger(db, "api_keys", "trust-registry.api-keys");
    await createCacheTopicTrigger(db, "tenant_credential_configurations", "trust-registry.credential-configurations");
    await createCacheTopicTrigger(db, "tenant_dids", "trust-registry.dids");
  },
};
