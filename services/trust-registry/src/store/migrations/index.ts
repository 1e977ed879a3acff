import type { Migrations } from "@attesto/store";
import { custodyMigrations } from "../../custody/index.js";
import { createTenants } from "./0001-tenants.js";
import { createTenantDids } from "./0002-tenant-dids.js";
import { createTenantWebhooks } from "./0003-tenant-webhooks.js";
import { addTenantDeactivation } from "./0004-tenant-deactivation.js";
import { createTenantLifecycleEvents } from "./0005-tenant-lifecycle-events.js";
import { addTenantReactivatedAt } from "./0006-tenant-reactivated-at.js";
import { addCacheTopics } from "./0007-cache-topics.js";

/** Migrations of the trust_registry schema (tenants, DIDs, webhooks and key custody), applied in name order at start-up. */
export const migrations: Migrations = {
  "0001_tenants": createTenants,
  "0002_tenant_dids": createTenantDids,
  "0003_tenant_webhooks": createTenantWebhooks,
  "0004_tenant_deactivation": addTenantDeactivation,
  "0005_tenant_lifecycle_events": createTenantLifecycleEvents,
  "0006_tenant_reactivated_at": addTenantReactivatedAt,
  "0007_cache_topics": addCacheTopics,
  ...custodyMigrations,
};
