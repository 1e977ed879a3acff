import type { Kysely } from "kysely";
import type { WebhookRepository } from "../domain/ports.js";
import type { TrustRegistryTables } from "./tables.js";

/** Tenants' webhook configurations on PostgreSQL (`db` is bound to the service's schema). */
/** Timestamps it writes are `now()` (the service's clock). */
export function createWebhookStore(database: Kysely<unknown>, now: () => Date): WebhookRepository {
  const db = database as Kysely<TrustRegistryTables>;
  return {
    async replace(tenant, webhooks, secretEnvelope, generateEnvelope) {
      return db.transaction().execute(async (trx) => {
        // The tenant row lock serializes replaces of one tenant (and proves the tenant exists).
        const account = await trx
          .selectFrom("tenants")
          .select("tenant")
          .where("tenant", "=", tenant)
          .where("deactivated_at", "is", null)
          .forUpdate()
          .executeTakeFirst();
        if (!account) return undefined;
        const current = await trx
          .selectFrom("tenant_webhooks")
          .select("secret_envelope")
          .where("tenant", "=", tenant)
          .executeTakeFirst();
        const endpoints = JSON.stringify(webhooks);
        if (!current) {
          const envelope = secretEnvelope ?? generateEnvelope();
          await trx
            .insertInto("tenant_webhooks")
            .values({ tenant, endpoints, secret_envelope: envelope, created_at: now(), updated_at: now() })
            .execute();
          return secretEnvelope ? "replaced" : "generated";
        }
        await trx
          .updateTable("tenant_webhooks")
          .set({
            endpoints,
            secret_envelope: secretEnvelope ?? current.secret_envelope,
            updated_at: now(),
          })
          .where("tenant", "=", tenant)
          .execute();
        return secretEnvelope ? "replaced" : "kept";
      });
    },

    async find(tenant) {
      const row = await db
        .selectFrom("tenant_webhooks")
        .select(["endpoints", "secret_envelope"])
        .where("tenant", "=", tenant)
        .executeTakeFirst();
      if (!row) return undefined;
      const endpoints = typeof row.endpoints === "string" ? JSON.parse(row.endpoints) : row.endpoints;
      return { webhooks: endpoints, secretEnvelope: row.secret_envelope };
    },
  };
}
