import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ledger, loadLedgerConfig } from "@attesto/ledger";
import { notaryV1 } from "@attesto/proto";
import { type InternalServer, startInternalServer } from "@attesto/runtime/rpc";
import { createServiceContext } from "@attesto/runtime/service";
import { testCredentialVerifier, testIdentityEnv } from "@attesto/runtime/testing";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import type { ConnectRouter } from "@connectrpc/connect";
import { type Kysely, sql } from "kysely";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSchedulerConfig } from "../src/config.js";
import { createDependencies } from "../src/dependencies.js";
import { NotaryServiceRpc } from "../src/rpc/notary-service.rpc.js";
import { scheduler } from "../src/service.js";
import { migrations } from "../src/store/migrations/index.js";
import type { SchedulerTables } from "../src/store/tables.js";
import { inMemoryClient, newCredentialId, sha256Hex, waitFor } from "./support/test-scheduler.js";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const logger = pino({ level: "silent" });

/** The real ledger on a real port; its first Notarize writes, then answers only after `holdMs`. */
async function startSlowLedger(holdMs: number) {
  const database = await createTestDatabase<unknown>({ prefix: "ledger", migrations: ledger.definition.migrations });
  const config = loadLedgerConfig({
    DATABASE_URL: database.url,
    DATABASE_SCHEMA: database.schema,
    ...testIdentityEnv("ledger"),
    LOG_LEVEL: "silent",
  });
  const context = createServiceContext(ledger.definition, config, database.db as Kysely<unknown>);
  let calls = 0;
  let firstCall: () => void = () => {};
  const firstCallSeen = new Promise<void>((resolve) => {
    firstCall = resolve;
  });
  const slow = <T extends object>(impl: T): T =>
    new Proxy(impl, {
      get(target, property) {
        const value = Reflect.get(target, property);
        if (property !== "notarize" || typeof value !== "function") {
          return typeof value === "function" ? value.bind(target) : value;
        }
        return async (...args: unknown[]) => {
          calls += 1;
          const result = await value.apply(target, args);
          if (calls === 1) {
            firstCall();
            await new Promise((resolve) => setTimeout(resolve, holdMs));
          }
          return result;
        };
      },
    });
  const routes = (router: ConnectRouter) =>
    ledger.definition.rpc?.(
      new Proxy(router, {
        get(target, property) {
          if (property === "service") {
            return (service: never, impl: object, options?: never) =>
              target.service(service, slow(impl) as never, options);
          }
          const value = Reflect.get(target, property);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
      context,
    );
  const server: InternalServer = await startInternalServer({
    service: "ledger",
    version: "test",
    host: "127.0.0.1",
    port: 0,
    routes,
    verifier: testCredentialVerifier("ledger"),
    logger: logger as never,
  });
  return {
    url: server.url,
    database,
    firstCallSeen,
    calls: () => calls,
    async close() {
      await server.close();
      await database.drop();
    },
  };
}

describe("a scheduler killed mid-job", () => {
  let database: TestDatabase<SchedulerTables>;
  let slowLedger: Awaited<ReturnType<typeof startSlowLedger>>;
  const children = new Set<ChildProcess>();
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase<SchedulerTables>({ prefix: "scheduler", migrations });
    slowLedger = await startSlowLedger(4_000);
    env = {
      DATABASE_URL: database.url,
      DATABASE_SCHEMA: database.schema,
      JOB_QUEUE_SCHEMA: `${database.schema}_boss`,
      ...testIdentityEnv("scheduler"),
      HOST: "127.0.0.1",
      PORT: "0",
      INTERNAL_PORT: "0",
      LOG_LEVEL: "silent",
      LEDGER_INTERNAL_URL: slowLedger.url,
      TRUST_REGISTRY_INTERNAL_URL: "http://127.0.0.1:1",
      NOTARY_BATCH_INTERVAL_MS: "200",
      NOTARY_JOB_TIMEOUT_SECONDS: "2",
      JOB_SUPERVISE_INTERVAL_SECONDS: "1",
      JOB_POLLING_INTERVAL_MS: "500",
      // The restarted process sent nothing: it finds the dead worker's expired job by its idle poll.
      JOB_IDLE_POLLING_INTERVAL_MS: "1000",
      RPC_TIMEOUT_MS: "10000",
    };
  });

  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await slowLedger?.close();
    await sql`DROP SCHEMA IF EXISTS ${sql.id(`${database.schema}_boss`)} CASCADE`.execute(database.db).catch(() => {});
    await database?.drop();
  });

  const startChild = () => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    children.add(child);
    child.once("exit", () => children.delete(child));
    return child;
  };
  const exited = (child: ChildProcess) =>
    new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", () => resolve())));

  it("finishes the job after a restart and anchors exactly once", async () => {
    // The issuer's side: enqueue through NotaryService on the same database.
    const config = loadSchedulerConfig({ ...env, LOG_LEVEL: "silent" });
    const context = createServiceContext(scheduler.definition, config, database.db as Kysely<unknown>);
    const deps = createDependencies(context);
    const notary = inMemoryClient(
      notaryV1.NotaryService,
      (router) => router.service(notaryV1.NotaryService, new NotaryServiceRpc(deps)),
      { caller: "credential-issuer", callee: "scheduler" },
    );
    const admin = inMemoryClient(
      notaryV1.NotaryService,
      (router) => router.service(notaryV1.NotaryService, new NotaryServiceRpc(deps)),
      { caller: "operator", callee: "scheduler" },
    );
    const reference = await notary.enqueueNotarization({
      tenant: "acme",
      credentialId: newCredentialId(),
      digest: sha256Hex("kill -9"),
    });

    const first = startChild();
    await slowLedger.firstCallSeen;
    // The ledger has written the batch root; the worker is waiting for the answer. kill -9.
    first.kill("SIGKILL");
    await exited(first);
    const midway = await admin.getNotarization({ objectId: reference.objectId });
    expect(midway.notarization?.state).toBe(notaryV1.NotarizationState.PENDING);

    const second = startChild();
    const anchored = await waitFor(
      async () => {
        const { notarization } = await admin.getNotarization({ objectId: reference.objectId });
        return notarization?.state === notaryV1.NotarizationState.ANCHORED && notarization;
      },
      45_000,
      "anchored after restart",
    );
    second.kill("SIGTERM");
    await exited(second);

    expect(slowLedger.calls()).toBeGreaterThanOrEqual(2);
    expect(anchored.attempts).toBe(2);
    const entries = await sql<{ object_id: string }>`
      SELECT payload->>'object_id' AS object_id FROM ${sql.table(`${slowLedger.database.schema}.ledger_entries`)}
      WHERE kind = 'notarization'
    `.execute(slowLedger.database.db);
    expect(entries.rows).toEqual([{ object_id: anchored.anchor!.objectId }]);
    const batches = await database.db.selectFrom("batches").select(["state", "attempts"]).execute();
    expect(batches).toEqual([{ state: "anchored", attempts: 2 }]);
  }, 90_000);
});
