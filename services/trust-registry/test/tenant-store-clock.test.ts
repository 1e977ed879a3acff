import { randomUUID } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations } from "../src/store/migrations/index.js";
import { createTenantStore } from "../src/store/tenant.store.js";
import { createWebhookStore } from "../src/store/webhook.store.js";

/** A clock far from the database's own (a year ahead); each step sets it. */
let current = new Date("2027-11-25T10:00:00.000Z");
const clock = () => current;
const at = (iso: string) => {
  current = new Date(iso);
};

describe("tenant and webhook stores: every timestamp they write comes from the injected clock", () => {
  let database: TestDatabase<unknown>;
  /** One timestamp column of the only row (or the row whose key_hash is `keyHash`), as ISO text. */
  const column = async (table: string, name: string, keyHash?: string) => {
    const db = database.db as Kysely<Record<string, Record<string, unknown>>>;
    let query = db.selectFrom(table).select(name);
    if (keyHash) query = query.where("key_hash", "=", keyHash);
    const rows = await query.execute();
    expect(rows).toHaveLength(1);
    return (rows[0]?.[name] as Date | null)?.toISOString();
  };

  beforeAll(async () => {
    database = await createTestDatabase<unknown>({ prefix: "trust_registry_clock", migrations });
  });
  afterAll(() => database?.drop());

  it("creation, approval, key rotation, deactivation and webhook changes are stamped with the clock", async () => {
    const tenants = createTenantStore(database.db, clock);
    const webhooks = createWebhookStore(database.db, clock);
    at("2027-11-25T10:00:00.000Z");
    await tenants.create({
      accountUuid: randomUUID(),
      tenant: "clock-check",
      name: "Clock check",
      email: null,
      passwordHash: null,
      isIssuer: true,
      isVerifier: false,
      status: "PENDING",
      apiKeyHash: "hash-1",
      credentialConfigurations: [{ id: "badge", type: "employee-badge", version: "v1", vct: "urn:badge" }],
    });
    expect((await tenants.findByTenant("clock-check"))?.createdAt.toISOString()).toBe("2027-11-25T10:00:00.000Z");
    expect(await column("api_keys", "created_at", "hash-1")).toBe("2027-11-25T10:00:00.000Z");
    expect(await column("tenant_credential_configurations", "created_at")).toBe("2027-11-25T10:00:00.000Z");

    at("2027-11-26T11:00:00.000Z");
    await tenants.approve("clock-check");
    expect(await column("tenants", "updated_at")).toBe("2027-11-26T11:00:00.000Z");

    at("2027-11-27T12:00:00.000Z");
    await tenants.replaceApiKeys("clock-check", "hash-2");
    expect(await column("api_keys", "revoked_at", "hash-1")).toBe("2027-11-27T12:00:00.000Z");
    expect(await column("api_keys", "created_at", "hash-2")).toBe("2027-11-27T12:00:00.000Z");

    at("2027-11-28T13:00:00.000Z");
    await webhooks.replace("clock-check", [], undefined, () => "envelope");
    expect(await column("tenant_webhooks", "created_at")).toBe("2027-11-28T13:00:00.000Z");
    at("2027-11-29T14:00:00.000Z");
    await webhooks.replace("clock-check", [], "envelope-2", () => "unused");
    expect(await column("tenant_webhooks", "updated_at")).toBe("2027-11-29T14:00:00.000Z");

    at("2027-11-30T15:00:00.000Z");
    await tenants.deactivate("clock-check");
    expect(await column("tenants", "deactivated_at")).toBe("2027-11-30T15:00:00.000Z");
    expect(await column("api_keys", "revoked_at", "hash-2")).toBe("2027-11-30T15:00:00.000Z");
  });
});
