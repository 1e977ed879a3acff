import { createHash, randomUUID } from "node:crypto";
import { runApiKeyRotate } from "@attesto/cli";
import { tenantV1 } from "@attesto/proto";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vctOf } from "./support/in-memory-schema-registry.js";
import { registerOrganization, uniqueTenant } from "./support/organizations.js";
import { startTestRegistry, type TestRegistry } from "./support/test-registry.js";

const { ApiKeyOutcome, Role } = tenantV1;
const API_KEY = /^attesto_production_[0-9a-f]{48}$/;

const codeOf = (error: unknown) => ConnectError.from(error).code;
const rawMessageOf = (error: unknown) => ConnectError.from(error).rawMessage;

describe("TenantService", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(async () => {
    await registry?.close();
  });

  const authenticate = (apiKey: string) => registry.tenantServiceAs("credential-issuer").authenticateApiKey({ apiKey });

  describe("AuthenticateApiKey", () => {
    it("answers VALID with the account, tenant, name, roles and status", async () => {
      const organization = await registerOrganization(registry.app, { name: "Acme Labs" });
      const response = await authenticate(organization.apiKey);
      expect(response.outcome).toBe(ApiKeyOutcome.VALID);
      expect(response.tenant).toMatchObject({
        accountUuid: organization.uuid,
        tenant: organization.tenant,
        name: "Acme Labs",
        roles: [Role.ISSUER, Role.VERIFIER],
        status: "APPROVED",
      });
    });

    it("reports only the roles the tenant has", async () => {
      const verifierOnly = await registerOrganization(registry.app, { is_issuer: false });
      expect((await authenticate(verifierOnly.apiKey)).tenant?.roles).toEqual([Role.VERIFIER]);
      const issuerOnly = await registerOrganization(registry.app, { is_verifier: false });
      expect((await authenticate(issuerOnly.apiKey)).tenant?.roles).toEqual([Role.ISSUER]);
      const neither = await registerOrganization(registry.app, { is_issuer: false, is_verifier: false });
      expect((await authenticate(neither.apiKey)).tenant?.roles).toEqual([]);
    });

    it("answers INVALID for unknown or malformed keys, without a tenant", async () => {
      const organization = await registerOrganization(registry.app);
      const lastHexFlipped = organization.apiKey.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
      for (const apiKey of [
        lastHexFlipped,
        organization.apiKey.toUpperCase(),
        `${organization.apiKey}0`,
        organization.apiKey.slice(0, -1),
        organization.apiKey.replace("attesto_production_", "attesto_staging_"),
        organization.apiKey.replace("attesto_", "other_"),
        ` ${organization.apiKey}`,
        "",
        "nope",
      ]) {
        const response = await authenticate(apiKey);
        expect({ apiKey, outcome: response.outcome, tenant: response.tenant }).toEqual({
          apiKey,
          outcome: ApiKeyOutcome.INVALID,
          tenant: undefined,
        });
      }
    });

    it("answers NOT_APPROVED for the key of an account pending approval", async () => {
      const organization = await registerOrganization(registry.app);
      await registry.db
        .updateTable("tenants")
        .set({ status: "PENDING" })
        .where("tenant", "=", organization.tenant)
        .execute();
      const response = await authenticate(organization.apiKey);
      expect(response.outcome).toBe(ApiKeyOutcome.NOT_APPROVED);
      expect(response.tenant).toMatchObject({ tenant: organization.tenant, status: "PENDING" });
    });
  });

  describe("ReplaceApiKey", () => {
    it("revokes the old key and returns a new one", async () => {
      const organization = await registerOrganization(registry.app);
      const { apiKey } = await registry.tenantService.replaceApiKey({ tenant: organization.tenant.toUpperCase() });
      expect(apiKey).toMatch(API_KEY);
      expect(apiKey).not.toBe(organization.apiKey);
      expect((await authenticate(organization.apiKey)).outcome).toBe(ApiKeyOutcome.INVALID);
      expect((await authenticate(apiKey)).outcome).toBe(ApiKeyOutcome.VALID);

      const again = await registry.tenantService.replaceApiKey({ tenant: organization.tenant });
      expect((await authenticate(apiKey)).outcome).toBe(ApiKeyOutcome.INVALID);
      expect((await authenticate(again.apiKey)).outcome).toBe(ApiKeyOutcome.VALID);
      const rows = await registry.db
        .selectFrom("api_keys")
        .select(["key_hash", "revoked_at"])
        .where("account_uuid", "=", organization.uuid)
        .execute();
      expect(rows.filter((row) => row.revoked_at === null)).toEqual([
        { key_hash: createHash("sha256").update(again.apiKey).digest("hex"), revoked_at: null },
      ]);
    });

    it("answers NOT_FOUND for an unknown tenant", async () => {
      const error = await registry.tenantService.replaceApiKey({ tenant: "no-such-tenant" }).catch((e: unknown) => e);
      expect(codeOf(error)).toBe(Code.NotFound);
    });
  });

  describe("GetTenant", () => {
    it("returns the tenant and its credential configurations", async () => {
      const organization = await registerOrganization(registry.app);
      const response = await registry.tenantService.getTenant({ tenant: organization.tenant });
      expect(response.tenant).toMatchObject({
        accountUuid: organization.uuid,
        tenant: organization.tenant,
        status: "APPROVED",
      });
      expect(
        response.credentialConfigurations.map(({ id, type, version, vct }) => ({ id, type, version, vct })),
      ).toEqual([
        { id: "employee-badge", type: "employee-badge", version: "v1", vct: vctOf("employee-badge", "v1") },
        { id: "university-diploma", type: "university-diploma", version: "v1", vct: vctOf("university-diploma", "v1") },
        {
          id: "university-diploma-v2",
          type: "university-diploma",
          version: "v2",
          vct: vctOf("university-diploma", "v2"),
        },
      ]);
    });

    it("answers NOT_FOUND for an unknown tenant", async () => {
      const error = await registry.tenantService.getTenant({ tenant: "no-such-tenant" }).catch((e: unknown) => e);
      expect(codeOf(error)).toBe(Code.NotFound);
    });
  });

  describe("ApplyTenant (operator)", () => {
    it("creates an absent tenant and returns its key once, then updates name and roles", async () => {
      const tenant = uniqueTenant("op");
      const created = await registry.tenantService.applyTenant({
        tenant: tenant.toUpperCase(),
        name: "Operator Org",
        email: `${tenant}@ops.example`,
        isIssuer: true,
        isVerifier: false,
      });
      expect(created.apiKey).toMatch(API_KEY);
      expect(created.tenant).toMatchObject({ tenant, name: "Operator Org", roles: [Role.ISSUER], status: "APPROVED" });
      expect((await authenticate(created.apiKey)).outcome).toBe(ApiKeyOutcome.VALID);
      expect((await registry.tenantService.getTenant({ tenant })).credentialConfigurations).toHaveLength(3);

      registry.schemaRegistry.types.push({ type: "membership", version: "v1", status: "active" });
      try {
        const updated = await registry.tenantService.applyTenant({
          tenant,
          name: "Renamed Org",
          isIssuer: true,
          isVerifier: true,
        });
        expect(updated.apiKey).toBe("");
        expect(updated.tenant).toMatchObject({
          accountUuid: created.tenant?.accountUuid,
          name: "Renamed Org",
          roles: [Role.ISSUER, Role.VERIFIER],
        });
        const configurations = (await registry.tenantService.getTenant({ tenant })).credentialConfigurations;
        expect(configurations.map((c) => c.id)).toContain("membership");
        expect((await authenticate(created.apiKey)).outcome).toBe(ApiKeyOutcome.VALID);
      } finally {
        registry.schemaRegistry.types.pop();
      }
    });

    it("applies the apply field rules", async () => {
      for (const [request, message] of [
        [
          { tenant: "svc-internal", name: "X" },
          "tenant must not start with a reserved prefix (u-, svc-, admin-, api-, www-)",
        ],
        [{ tenant: "bad tenant", name: "X" }, "tenant may contain only letters a-z, digits, hyphens and underscores"],
        [{ tenant: uniqueTenant(), name: "" }, "name must not be empty"],
        [{ tenant: uniqueTenant(), name: "X", email: "nope" }, "email must be a valid email address"],
      ] as const) {
        const error = await registry.tenantService.applyTenant(request).catch((e: unknown) => e);
        expect({ code: codeOf(error), message: rawMessageOf(error) }).toEqual({ code: Code.InvalidArgument, message });
      }
    });
  });
});

describe("TenantService.ProvisionCredentialTypes (attesto types add)", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(async () => {
    await registry?.close();
  });
  const idsOf = async (tenant: string) =>
    (await registry.tenantService.getTenant({ tenant })).credentialConfigurations.map((c) => c.id).sort();

  it("gives every active tenant the active types it lacks, once; deactivated tenants are left alone", async () => {
    const first = await registerOrganization(registry.app);
    const second = await registerOrganization(registry.app);
    const gone = await registerOrganization(registry.app);
    await registry.tenantService.deleteTenant({ tenant: gone.tenant });
    const before = await idsOf(first.tenant);
    expect(before).not.toContain("library-card");

    registry.schemaRegistry.types.push(
      { type: "library-card", version: "v1", status: "active" },
      { type: "museum-pass", version: "v1", status: "draft" },
    );
    try {
      const added = await registry.tenantService.provisionCredentialTypes({});
      // The two active tenants of this registry, not the deactivated one.
      expect(added.configurationsAdded).toBe(2);
      expect(await idsOf(first.tenant)).toEqual([...before, "library-card"].sort());
      expect(await idsOf(second.tenant)).toContain("library-card");
      expect(await idsOf(first.tenant)).not.toContain("museum-pass");
      const configuration = (
        await registry.tenantService.getTenant({ tenant: first.tenant })
      ).credentialConfigurations.find((c) => c.id === "library-card");
      expect(configuration).toMatchObject({ type: "library-card", version: "v1", vct: vctOf("library-card", "v1") });
      const deactivatedConfigurations = await registry.db
        .selectFrom("tenant_credential_configurations")
        .select("config_id")
        .where("tenant", "=", gone.tenant)
        .execute();
      expect(deactivatedConfigurations.map((row) => row.config_id)).not.toContain("library-card");

      expect((await registry.tenantService.provisionCredentialTypes({})).configurationsAdded).toBe(0);
    } finally {
      registry.schemaRegistry.types.splice(-2, 2);
    }
  });

  it("is the operator's only", async () => {
    const error = await registry
      .tenantServiceAs("credential-issuer")
      .provisionCredentialTypes({})
      .catch((e: unknown) => e);
    expect(codeOf(error)).toBe(Code.PermissionDenied);
  });
});

describe("attesto apikey rotate", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(async () => {
    await registry?.close();
  });

  const run = async (tenant: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
    const code = await runApiKeyRotate({ tenant }, registry.tenantService, io).catch((e: unknown) => e);
    return { code, out, err };
  };

  it("prints a new key once and revokes the old one", async () => {
    const organization = await registerOrganization(registry.app);
    const result = await run(organization.tenant);
    expect(result.code).toBe(0);
    expect(result.out).toEqual([expect.stringMatching(API_KEY)]);
    const newKey = result.out[0]!;
    expect(
      (await registry.tenantServiceAs("credential-issuer").authenticateApiKey({ apiKey: organization.apiKey })).outcome,
    ).toBe(ApiKeyOutcome.INVALID);
    expect((await registry.tenantServiceAs("credential-issuer").authenticateApiKey({ apiKey: newKey })).outcome).toBe(
      ApiKeyOutcome.VALID,
    );
  });

  it("fails for an unknown tenant", async () => {
    const result = await run(`missing-${randomUUID()}`);
    expect({ code: codeOf(result.code), message: rawMessageOf(result.code), out: result.out }).toEqual({
      code: Code.NotFound,
      message: "Tenant not found",
      out: [],
    });
  });
});
