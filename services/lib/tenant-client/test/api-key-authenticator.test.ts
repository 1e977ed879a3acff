import { tenantV1 } from "@attesto/proto";
import { type App, apiTenantOf, createApp, requireApiKey } from "@attesto/runtime/http";
import { createRpcClient } from "@attesto/runtime/rpc";
import { drivenCacheInvalidations, testCredentialSigner } from "@attesto/runtime/testing";
import { createApiKeyAuthenticator, TRUST_REGISTRY_TOPICS } from "@attesto/tenant-client";
import { type ConnectRouter, createClient, createRouterTransport } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const config = {
  LOG_LEVEL: "silent",
  BODY_LIMIT_BYTES: 1024,
  REQUEST_TIMEOUT_MS: 5000,
  CORS_ORIGINS: "*",
  TRUST_PROXY: false,
} as const;

const tenant = (name: string, roles: tenantV1.Role[]) => ({
  accountUuid: "0b9f6c1e-2f4e-4d5a-9c1b-3f1e2d3c4b5a",
  tenant: name,
  name: `${name} org`,
  roles,
  status: "APPROVED",
});

/** A trust registry double: three keys with known outcomes; `revoked` keys answer INVALID. */
function trustRegistry(router: ConnectRouter, calls: { count: number; revoked: Set<string> }) {
  router.service(tenantV1.TenantService, {
    authenticateApiKey(req) {
      calls.count++;
      if (calls.revoked.has(req.apiKey)) return { outcome: tenantV1.ApiKeyOutcome.INVALID };
      switch (req.apiKey) {
        case "key-issuer":
          return { outcome: tenantV1.ApiKeyOutcome.VALID, tenant: tenant("acme", [tenantV1.Role.ISSUER]) };
        case "key-pending":
          return { outcome: tenantV1.ApiKeyOutcome.NOT_APPROVED, tenant: tenant("slow", [tenantV1.Role.ISSUER]) };
        default:
          return { outcome: tenantV1.ApiKeyOutcome.INVALID };
      }
    },
  });
}

describe("requireApiKey", () => {
  let app: App;
  const calls = { count: 0, revoked: new Set<string>() };
  beforeAll(async () => {
    const tenants = createClient(
      tenantV1.TenantService,
      createRouterTransport((r) => trustRegistry(r, calls)),
    );
    const authenticator = createApiKeyAuthenticator(tenants);
    app = await createApp({ service: "t", version: "1", config });
    app.post("/offers", { preHandler: requireApiKey(authenticator, "issuer") }, async (req) => ({
      tenant: apiTenantOf(req).tenant,
    }));
    app.post("/verify", { preHandler: requireApiKey(authenticator, "verifier") }, async () => ({}));
  });
  afterAll(() => app.close());

  const post = (url: string, key?: string) =>
    app.inject({ method: "POST", url, headers: key === undefined ? {} : { "x-api-key": key } });

  it("answers the API-key errors exactly", async () => {
    expect((await post("/offers")).json()).toEqual({ error: "unauthorized", message: "API Key is required" });
    expect((await post("/offers", "")).statusCode).toBe(401);
    const invalid = await post("/offers", "nope");
    expect([invalid.statusCode, invalid.json()]).toEqual([401, { error: "unauthorized", message: "Invalid API Key" }]);
    const pending = await post("/offers", "key-pending");
    expect([pending.statusCode, pending.json()]).toEqual([
      401,
      { error: "unauthorized", message: "Account is not approved" },
    ]);
  });

  it("lets a tenant with the role through and forbids one without it", async () => {
    const ok = await post("/offers", "key-issuer");
    expect([ok.statusCode, ok.json()]).toEqual([200, { tenant: "acme" }]);
    const forbidden = await post("/verify", "key-issuer");
    expect([forbidden.statusCode, forbidden.json()]).toEqual([403, { error: "forbidden", message: "Forbidden" }]);
  });

  it("without cache invalidations, refuses a key the moment the trust registry revokes it: no answer is remembered", async () => {
    const before = calls.count;
    expect((await post("/offers", "key-issuer")).statusCode).toBe(200);
    expect((await post("/offers", "key-issuer")).statusCode).toBe(200);
    expect(calls.count).toBe(before + 2);
    calls.revoked.add("key-issuer");
    const refused = await post("/offers", "key-issuer");
    expect([refused.statusCode, refused.json()]).toEqual([401, { error: "unauthorized", message: "Invalid API Key" }]);
    calls.revoked.delete("key-issuer");
  });

  it("answers 503 when the trust registry is unreachable", async () => {
    const down = createRpcClient(tenantV1.TenantService, {
      baseUrl: "http://127.0.0.1:1",
      audience: "trust-registry",
      signer: testCredentialSigner("verifier"),
      timeoutMs: 500,
      retries: 0,
    });
    const app2 = await createApp({ service: "t", version: "1", config });
    app2.post("/x", { preHandler: requireApiKey(createApiKeyAuthenticator(down)) }, async () => ({}));
    const res = await app2.inject({ method: "POST", url: "/x", headers: { "x-api-key": "k" } });
    expect([res.statusCode, res.json().error]).toEqual([503, "unavailable"]);
    await app2.close();
  });
});

describe("requireApiKey with cache invalidations", () => {
  const calls = { count: 0, revoked: new Set<string>() };
  const driven = drivenCacheInvalidations();
  let app: App;
  beforeAll(async () => {
    const tenants = createClient(
      tenantV1.TenantService,
      createRouterTransport((r) => trustRegistry(r, calls)),
    );
    app = await createApp({ service: "t", version: "1", config });
    app.post(
      "/offers",
      { preHandler: requireApiKey(createApiKeyAuthenticator(tenants, driven.invalidations), "issuer") },
      async () => ({}),
    );
  });
  afterAll(() => app.close());
  const post = (key: string) => app.inject({ method: "POST", url: "/offers", headers: { "x-api-key": key } });

  it("asks the trust registry once per key until its tenant or keys change, then refuses a revoked key on the very next request", async () => {
    for (let i = 0; i < 3; i += 1) expect((await post("key-issuer")).statusCode).toBe(200);
    expect(calls.count).toBe(1);
    calls.revoked.add("key-issuer");
    driven.change(TRUST_REGISTRY_TOPICS.apiKeys);
    expect((await post("key-issuer")).json()).toEqual({ error: "unauthorized", message: "Invalid API Key" });
    calls.revoked.delete("key-issuer");
    driven.change(TRUST_REGISTRY_TOPICS.tenants);
    expect((await post("key-issuer")).statusCode).toBe(200);
    expect(calls.count).toBe(3);
  });

  it("remembers 'not approved' until the tenant changes, never an unknown key", async () => {
    const before = calls.count;
    await post("key-pending");
    expect((await post("key-pending")).json()).toEqual({ error: "unauthorized", message: "Account is not approved" });
    await post("nope");
    await post("nope");
    expect(calls.count).toBe(before + 3);
  });

  it("reads through while the invalidations cannot be trusted (listener down)", async () => {
    driven.setCoherent(false);
    const before = calls.count;
    await post("key-issuer");
    await post("key-issuer");
    expect(calls.count).toBe(before + 2);
    driven.setCoherent(true);
  });
});
