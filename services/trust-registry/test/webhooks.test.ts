import { randomBytes } from "node:crypto";
import { tenantV1 } from "@attesto/proto";
import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import type { ServiceIdentity } from "@attesto/runtime/rpc";
import { clientInterceptors, serverInterceptors } from "@attesto/runtime/rpc";
import { testCredentialSigner, testCredentialVerifier } from "@attesto/runtime/testing";
import { type Client, Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { sql } from "kysely";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookSecretContext } from "../src/domain/set-webhooks.js";
import { TenantServiceRpc } from "../src/rpc/tenant-service.rpc.js";
import { registerOrganization } from "./support/organizations.js";
import { startTestRegistry, type TestRegistry } from "./support/test-registry.js";

const codeOf = (error: unknown) => ConnectError.from(error).code;
const rawMessageOf = (error: unknown) => ConnectError.from(error).rawMessage;
const GENERATED_SECRET = /^whsec_[A-Za-z0-9_-]{43}$/;

/** TenantService as `caller` reaches it: in memory, through the real credential interceptors. */
function tenantServiceAs(registry: TestRegistry, caller: ServiceIdentity): Client<typeof tenantV1.TenantService> {
  const transport = createRouterTransport(
    (router) => router.service(tenantV1.TenantService, new TenantServiceRpc(registry.domain)),
    {
      router: {
        interceptors: serverInterceptors(testCredentialVerifier("trust-registry"), pino({ level: "silent" })),
      },
      transport: {
        interceptors: clientInterceptors({
          signer: testCredentialSigner(caller),
          audience: "trust-registry",
          retries: 0,
        }),
      },
    },
  );
  return createClient(tenantV1.TenantService, transport);
}

describe("TenantService SetWebhooks / GetWebhooks", () => {
  let registry: TestRegistry;
  /** The operator sets webhooks; only the scheduler reads them (with the secret). */
  let operator: Client<typeof tenantV1.TenantService>;
  let scheduler: Client<typeof tenantV1.TenantService>;
  beforeAll(async () => {
    registry = await startTestRegistry();
    operator = tenantServiceAs(registry, "operator");
    scheduler = tenantServiceAs(registry, "scheduler");
  });
  afterAll(async () => {
    await registry?.close();
  });

  const rowOf = (tenant: string) =>
    registry.db.selectFrom("tenant_webhooks").selectAll().where("tenant", "=", tenant).executeTakeFirst();

  it("answers no webhooks and no secret for a tenant that never set any", async () => {
    const { tenant } = await registerOrganization(registry.app);
    expect(await scheduler.getWebhooks({ tenant })).toMatchObject({ webhooks: [], secret: "" });
  });

  it("generates a secret once, returns it once, and keeps it when endpoints change", async () => {
    const { tenant } = await registerOrganization(registry.app);
    const first = await operator.setWebhooks({
      tenant: tenant.toUpperCase(),
      webhooks: [{ url: "https://hooks.example.com/attesto", events: ["credential.notarized"] }],
    });
    expect(first.generatedSecret).toMatch(GENERATED_SECRET);
    const read = await scheduler.getWebhooks({ tenant });
    expect(read.secret).toBe(first.generatedSecret);
    expect(read.webhooks.map(({ url, events }) => ({ url, events }))).toEqual([
      { url: "https://hooks.example.com/attesto", events: ["credential.notarized"] },
    ]);

    const second = await operator.setWebhooks({
      tenant,
      webhooks: [
        { url: "https://hooks.example.com/a", events: [] },
        { url: "http://127.0.0.1:9999/local", events: ["credential.notarization_failed", "credential.notarized"] },
      ],
    });
    expect(second.generatedSecret).toBe("");
    const after = await scheduler.getWebhooks({ tenant });
    expect(after.secret).toBe(first.generatedSecret);
    expect(after.webhooks.map((w) => w.url)).toEqual(["https://hooks.example.com/a", "http://127.0.0.1:9999/local"]);

    const cleared = await operator.setWebhooks({ tenant, webhooks: [] });
    expect(cleared.generatedSecret).toBe("");
    expect(await scheduler.getWebhooks({ tenant })).toMatchObject({
      webhooks: [],
      secret: first.generatedSecret,
    });
  });

  it("replaces the secret when one is given, and never stores it in the clear", async () => {
    const { tenant } = await registerOrganization(registry.app);
    const secret = `mysecret-${randomBytes(16).toString("hex")}`;
    const response = await operator.setWebhooks({
      tenant,
      webhooks: [{ url: "https://hooks.example.com/x", events: [] }],
      secret,
    });
    expect(response.generatedSecret).toBe("");
    expect((await scheduler.getWebhooks({ tenant })).secret).toBe(secret);

    const row = await rowOf(tenant);
    expect(row?.secret_envelope).toMatch(/^v1\.k1\./);
    const everything = await sql<{ row: string }>`
      SELECT row_to_json(t)::text AS row FROM ${sql.table(`${registry.database.schema}.tenant_webhooks`)} t
    `.execute(registry.database.db);
    const dump = everything.rows.map((r) => r.row).join("\n");
    expect(dump).toContain(tenant);
    for (const form of [secret, Buffer.from(secret).toString("base64"), Buffer.from(secret).toString("hex")]) {
      expect(dump).not.toContain(form);
    }
    // Sealed under the configured KEK and bound to the tenant: another tenant's context does not open it.
    const sealer = createEnvelopeSealer(registry.config.KEY_ENCRYPTION_KEYS);
    expect(new TextDecoder().decode(sealer.open(row!.secret_envelope, webhookSecretContext(tenant)))).toBe(secret);
    expect(() => sealer.open(row!.secret_envelope, webhookSecretContext(`${tenant}x`))).toThrow();
  });

  it("refuses URLs that are not absolute http(s) URLs, and unknown event types", async () => {
    const { tenant } = await registerOrganization(registry.app);
    for (const [webhooks, message] of [
      [[{ url: "ftp://hooks.example.com/x", events: [] }], "webhook url must use http or https"],
      [[{ url: "not a url", events: [] }], "webhook url must be an absolute URL"],
      [[{ url: "https://user:pw@hooks.example.com/", events: [] }], "webhook url must not contain credentials"],
      [[{ url: "https://hooks.example.com/#frag", events: [] }], "webhook url must not contain a fragment"],
      [[{ url: "", events: [] }], "webhook url must be 1 to 2048 characters"],
      [
        [
          { url: "https://hooks.example.com/dup", events: [] },
          { url: "https://hooks.example.com/dup", events: [] },
        ],
        "webhook url https://hooks.example.com/dup is listed twice",
      ],
      [
        [{ url: "https://hooks.example.com/x", events: ["credential.issued"] }],
        "unknown webhook event type 'credential.issued' (known: credential.notarized, credential.notarization_failed, verification.completed, verification.failed, credential.status_changed, credential.accepted, credential.failure, credential.deleted)",
      ],
      [
        Array.from({ length: 11 }, (_, i) => ({ url: `https://hooks.example.com/${i}`, events: [] })),
        "at most 10 webhooks per tenant",
      ],
    ] as const) {
      const error = await registry.tenantService
        .setWebhooks({ tenant, webhooks: webhooks as never })
        .catch((e: unknown) => e);
      expect({ code: codeOf(error), message: rawMessageOf(error) }).toEqual({ code: Code.InvalidArgument, message });
    }
    const shortSecret = await registry.tenantService
      .setWebhooks({ tenant, webhooks: [], secret: "short" })
      .catch((e: unknown) => e);
    expect(codeOf(shortSecret)).toBe(Code.InvalidArgument);
    expect(await rowOf(tenant)).toBeUndefined();
  });

  it("answers NOT_FOUND for an unknown tenant", async () => {
    // One call at a time: a second call made up front would reject unobserved while the first is awaited.
    for (const call of [
      () => operator.setWebhooks({ tenant: "no-such-tenant", webhooks: [] }),
      () => scheduler.getWebhooks({ tenant: "no-such-tenant" }),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect({ code: codeOf(error), message: rawMessageOf(error) }).toEqual({
        code: Code.NotFound,
        message: "Tenant not found",
      });
    }
  });

  it("answers the secret to the scheduler only, the endpoints also to the operator", async () => {
    const { tenant } = await registerOrganization(registry.app);
    await operator.setWebhooks({ tenant, webhooks: [{ url: "https://hooks.example.com/s", events: [] }] });
    for (const caller of ["credential-issuer", "trust-registry"] as const) {
      const error = await tenantServiceAs(registry, caller)
        .getWebhooks({ tenant })
        .catch((e: unknown) => e);
      expect({ caller, code: codeOf(error), message: rawMessageOf(error) }).toEqual({
        caller,
        code: Code.PermissionDenied,
        message: `attesto.tenant.v1.TenantService/GetWebhooks may not be called by '${caller}'`,
      });
    }
    const seenByOperator = await tenantServiceAs(registry, "operator").getWebhooks({ tenant });
    expect({ urls: seenByOperator.webhooks.map((w) => w.url), secret: seenByOperator.secret }).toEqual({
      urls: ["https://hooks.example.com/s"],
      secret: "",
    });
    const seenByScheduler = await tenantServiceAs(registry, "scheduler").getWebhooks({ tenant });
    expect(seenByScheduler.secret).toMatch(/^whsec_/);
  });

  it("keeps one secret when concurrent calls race to generate it", async () => {
    const { tenant } = await registerOrganization(registry.app);
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        operator.setWebhooks({ tenant, webhooks: [{ url: "https://hooks.example.com/r", events: [] }] }),
      ),
    );
    const generated = results.map((r) => r.generatedSecret).filter(Boolean);
    expect(generated).toHaveLength(1);
    expect((await scheduler.getWebhooks({ tenant })).secret).toBe(generated[0]);
  });
});
