import { randomBytes } from "node:crypto";
import { type App, createOutboundGuard, type OutboundGuard, outboundGuardOptionsOf } from "@attesto/runtime/http";
import { createServiceContext } from "@attesto/runtime/service";
import { testIdentityEnv } from "@attesto/runtime/testing";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import { buildApp } from "../../src/app.js";
import { outboundHttpOf } from "../../src/clients/outbound-http.js";
import { loadHolderConfig } from "../../src/config.js";
import { createDependencies } from "../../src/dependencies.js";
import type { HolderDependencies } from "../../src/domain/ports.js";
import { holder } from "../../src/service.js";
import { migrations } from "../../src/store/migrations/index.js";
import { InMemoryLedger } from "./in-memory-ledger.js";
import { InMemoryNotary } from "./in-memory-notary.js";
import { testRootPem } from "./x509-chain.js";

export const HOLDER_URL = "https://holder.example";
export const HOLDER_TOKEN_SECRET = "h".repeat(40);

export interface Account {
  uuid: string;
  name: string | null;
  password: string;
  token: string;
  headers: { authorization: string };
}

export interface TestHolder {
  app: App;
  deps: HolderDependencies;
  database: TestDatabase<unknown>;
  ledger: InMemoryLedger;
  notary: InMemoryNotary;
  clock: { now: Date; advance(seconds: number): void };
  /** Registers an account and logs it in. */
  account(name?: string): Promise<Account>;
  close(): Promise<void>;
}

/**
 * The holder app on its own schema, with the ledger as an in-memory double and the real outbound
 * request guard, unless `http` replaces it. The doubles tests host for issuers and verifiers listen
 * on loopback, so the guard allows internal addresses (`guard: "loopback"`, the default) or is
 * exactly as the configuration says (`guard: "configured"`: nothing internal, https only).
 */
export async function startTestHolder(
  options: {
    http?: Pick<OutboundGuard, "request" | "checkUrl">;
    env?: Record<string, string>;
    guard?: "loopback" | "configured";
  } = {},
): Promise<TestHolder> {
  const database = await createTestDatabase<unknown>({ prefix: "holder", migrations });
  const config = loadHolderConfig({
    DATABASE_URL: database.url,
    DATABASE_SCHEMA: database.schema,
    ...testIdentityEnv("holder"),
    PUBLIC_URL: HOLDER_URL,
    LOG_LEVEL: "silent",
    HOLDER_TOKEN_SECRET,
    KEY_ENCRYPTION_KEYS: `test1:${randomBytes(32).toString("base64url")}`,
    // Verifier doubles' certificates chain to the shared test root; no trust registry runs here.
    VERIFIER_TRUST_ANCHORS_FROM_PLATFORM: "false",
    VERIFIER_TRUST_ANCHORS_PEM: await testRootPem(),
    ...options.env,
  });
  const ledger = new InMemoryLedger();
  const notary = new InMemoryNotary();
  const clock = {
    now: new Date(),
    advance(seconds: number) {
      this.now = new Date(this.now.getTime() + seconds * 1000);
    },
  };
  const context = createServiceContext(holder.definition, config, database.db, undefined, { clock: () => clock.now });
  const http =
    options.http ??
    (options.guard === "configured"
      ? undefined
      : createOutboundGuard({ ...outboundGuardOptionsOf(config), allowInternal: true }));
  const deps = createDependencies(context, {
    ledger: ledger.client(),
    notary: notary.client(),
    ...(http ? { http: outboundHttpOf(http) } : {}),
  });
  const app = await buildApp(context, deps);
  let counter = 0;
  return {
    app,
    deps,
    database,
    ledger,
    notary,
    clock,
    async account(name) {
      const password = `password-${++counter}-${randomBytes(4).toString("hex")}`;
      const registered = await app.inject({
        method: "POST",
        url: "/v1/user/register",
        payload: { password, ...(name === undefined ? {} : { name }) },
      });
      if (registered.statusCode !== 201) throw new Error(`register failed: ${registered.body}`);
      const { uuid } = registered.json() as { uuid: string };
      const login = await app.inject({ method: "POST", url: "/v1/user/login", payload: { uuid, password } });
      if (login.statusCode !== 200) throw new Error(`login failed: ${login.body}`);
      const token = login.json().access_token as string;
      return { uuid, name: name ?? null, password, token, headers: { authorization: `Bearer ${token}` } };
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
