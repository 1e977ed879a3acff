import { createServiceContext } from "@attesto/runtime/service";
import { testIdentityEnv } from "@attesto/runtime/testing";
import { createTestDatabase } from "@attesto/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { loadSchedulerConfig } from "../src/config.js";
import { scheduler } from "../src/service.js";

const BASE = { DATABASE_URL: "postgres://localhost/x", ...testIdentityEnv("scheduler") };

describe("configuration", () => {
  it("has safe defaults: private webhook targets refused, bounded retries", () => {
    expect(loadSchedulerConfig(BASE)).toMatchObject({
      PORT: 8087,
      INTERNAL_PORT: 9087,
      DATABASE_SCHEMA: "scheduler",
      JOB_QUEUE_SCHEMA: "scheduler_boss",
      LEDGER_INTERNAL_URL: "http://localhost:9088",
      TRUST_REGISTRY_INTERNAL_URL: "http://localhost:9085",
      NOTARY_BATCH_INTERVAL_MS: 5000,
      NOTARY_BATCH_MAX_SIZE: 256,
      NOTARY_RETRY_MAX_ATTEMPTS: 8,
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_MAX_ATTEMPTS: 16,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: false,
    });
    expect(loadSchedulerConfig({ ...BASE, WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(
      true,
    );
  });

  it("names every bad variable", () => {
    expect(() =>
      loadSchedulerConfig({
        ...BASE,
        NOTARY_BATCH_MAX_SIZE: "0",
        JOB_POLLING_INTERVAL_MS: "100",
        NOTARY_RETRY_BASE_DELAY_MS: "5000",
        NOTARY_RETRY_MAX_DELAY_MS: "1000",
        JOB_QUEUE_SCHEMA: "scheduler",
      }),
    ).toThrow(/NOTARY_BATCH_MAX_SIZE[\s\S]*JOB_POLLING_INTERVAL_MS/);
    expect(() => loadSchedulerConfig({ ...BASE, JOB_QUEUE_SCHEMA: "scheduler" })).toThrow(/JOB_QUEUE_SCHEMA/);
    expect(() =>
      loadSchedulerConfig({ ...BASE, NOTARY_RETRY_BASE_DELAY_MS: "5000", NOTARY_RETRY_MAX_DELAY_MS: "1000" }),
    ).toThrow(/NOTARY_RETRY_MAX_DELAY_MS: must be at least NOTARY_RETRY_BASE_DELAY_MS/);
    expect(() =>
      loadSchedulerConfig({ ...BASE, JOB_POLLING_INTERVAL_MS: "2000", JOB_IDLE_POLLING_INTERVAL_MS: "1000" }),
    ).toThrow(/JOB_IDLE_POLLING_INTERVAL_MS: must be at least JOB_POLLING_INTERVAL_MS/);
    expect(loadSchedulerConfig(BASE).JOB_IDLE_POLLING_INTERVAL_MS).toBe(10_000);
  });
});

describe("public HTTP", () => {
  const database = createTestDatabase({ prefix: "scheduler_http" });
  let app: Awaited<ReturnType<typeof buildApp>>;
  beforeAll(async () => {
    const db = await database;
    const config = loadSchedulerConfig({ ...BASE, DATABASE_URL: db.url, LOG_LEVEL: "silent" });
    app = await buildApp(createServiceContext(scheduler.definition, config, db.db));
  });
  afterAll(async () => {
    await app?.close();
    await (await database).drop();
  });

  it("serves /health (liveness only) and nothing else", async () => {
    const health = await app.inject({ method: "GET", url: "/health" });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: "ok", service: "scheduler", version: "0.1.0" });
    const other = await app.inject({ method: "GET", url: "/v1/notarizations" });
    expect(other.statusCode).toBe(404);
  });
});
