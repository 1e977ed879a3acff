import { invalidFieldsBody } from "@attesto/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vctOf } from "./support/in-memory-schema-registry.js";
import { apply, nextIp, PASSWORD, registerOrganization, uniqueTenant } from "./support/organizations.js";
import { startTestRegistry, type TestRegistry } from "./support/test-registry.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const API_KEY = /^attesto_production_[0-9a-f]{48}$/;

describe("POST /v1/apply", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(async () => {
    await registry?.close();
  });

  const valid = (overrides: Record<string, unknown> = {}) => ({
    name: "Acme University",
    password: PASSWORD,
    tenant: uniqueTenant(),
    ...overrides,
  });

  const expectInvalid = async (body: unknown, message: string) => {
    const response = await apply(registry.app, body);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: invalidFieldsBody(message),
    });
  };

  const tenantRow = (tenant: string) =>
    registry.db.selectFrom("tenants").selectAll().where("tenant", "=", tenant).executeTakeFirst();

  describe("success", () => {
    it("registers an approved organization and returns its uuid and API key once", async () => {
      const body = valid({ email: "contact@acme.example" });
      const response = await apply(registry.app, body);
      expect(response.statusCode).toBe(201);
      expect(response.headers["cache-control"]).toBe("no-store");
      const json = response.json();
      expect(Object.keys(json).sort()).toEqual(["api_key", "status", "uuid"]);
      expect(json).toEqual({
        uuid: expect.stringMatching(UUID_V4),
        status: "APPROVED",
        api_key: expect.stringMatching(API_KEY),
      });
      expect(await tenantRow(body.tenant)).toMatchObject({
        account_uuid: json.uuid,
        tenant: body.tenant,
        name: "Acme University",
        email: "contact@acme.example",
        is_issuer: true,
        is_verifier: true,
        status: "APPROVED",
      });
    });

    it("defaults is_issuer and is_verifier to true and keeps explicit false", async () => {
      const defaults = await registerOrganization(registry.app);
      expect(await tenantRow(defaults.tenant)).toMatchObject({ is_issuer: true, is_verifier: true, email: null });
      const verifierOnly = await registerOrganization(registry.app, { is_issuer: false });
      expect(await tenantRow(verifierOnly.tenant)).toMatchObject({ is_issuer: false, is_verifier: true });
      const issuerOnly = await registerOrganization(registry.app, { is_verifier: false });
      expect(await tenantRow(issuerOnly.tenant)).toMatchObject({ is_issuer: true, is_verifier: false });
    });

    it("lowercases the tenant before storing and checking it", async () => {
      const mixed = `Acme-${uniqueTenant("Org")}`.replace(/org/, "ORG");
      const response = await apply(registry.app, valid({ tenant: mixed }));
      expect(response.statusCode).toBe(201);
      expect(await tenantRow(mixed.toLowerCase())).toBeDefined();
      const duplicate = await apply(registry.app, valid({ tenant: mixed.toLowerCase() }));
      expect({ status: duplicate.statusCode, body: duplicate.json() }).toEqual({
        status: 409,
        body: { error: "conflict", message: `Tenant '${mixed.toLowerCase()}' already exists` },
      });
    });

    it("accepts the bounds: 1 and 255 character names, a 100 character tenant, 8 and 128 character passwords", async () => {
      await registerOrganization(registry.app, { name: "A", password: "Abcdefg1" });
      await registerOrganization(registry.app, {
        name: "N".repeat(255),
        tenant: `t${uniqueTenant()}`.padEnd(100, "x"),
        password: `Aa1${"x".repeat(125)}`,
      });
    });

    it("accepts digits, hyphens and underscores in the tenant", async () => {
      await registerOrganization(registry.app, { tenant: `acme_${uniqueTenant()}-2024` });
    });

    it("treats an empty or null email as absent", async () => {
      const empty = await registerOrganization(registry.app, { email: "" });
      expect((await tenantRow(empty.tenant))?.email).toBeNull();
      const nullEmail = await registerOrganization(registry.app, { email: null });
      expect((await tenantRow(nullEmail.tenant))?.email).toBeNull();
    });

    it("provisions the tenant's credential configurations from the active registered types", async () => {
      const organization = await registerOrganization(registry.app);
      const rows = await registry.db
        .selectFrom("tenant_credential_configurations")
        .select(["config_id", "type", "version", "vct"])
        .where("tenant", "=", organization.tenant)
        .orderBy("config_id")
        .execute();
      expect(rows).toEqual([
        { config_id: "employee-badge", type: "employee-badge", version: "v1", vct: vctOf("employee-badge", "v1") },
        {
          config_id: "university-diploma",
          type: "university-diploma",
          version: "v1",
          vct: vctOf("university-diploma", "v1"),
        },
        {
          config_id: "university-diploma-v2",
          type: "university-diploma",
          version: "v2",
          vct: vctOf("university-diploma", "v2"),
        },
      ]);
      expect(registry.schemaRegistry.requests.at(-1)).toBe("active");
    });
  });

  describe("400 naming the rule broken", () => {
    it("requires a JSON object body", async () => {
      const response = await registry.app.inject({ method: "POST", url: "/v1/apply", remoteAddress: nextIp() });
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 400,
        body: invalidFieldsBody("body must be a JSON object"),
      });
      await expectInvalid([], "body must be a JSON object");
    });

    it.each([
      ["name", "name is required"],
      ["password", "password is required"],
      ["tenant", "tenant is required"],
    ])("requires %s", async (field, message) => {
      const body: Record<string, unknown> = valid();
      delete body[field];
      await expectInvalid(body, message);
    });

    it.each([
      [{ name: "" }, "name must not be empty"],
      [{ name: "N".repeat(256) }, "name must be at most 255 characters"],
      [{ name: 42 }, "name must be a string"],
      [{ password: "Abcde1x" }, "password must be at least 8 characters"],
      [{ password: `Aa1${"x".repeat(126)}` }, "password must be at most 128 characters"],
      [{ password: "abcdefg1" }, "password must contain an uppercase letter"],
      [{ password: "ABCDEFG1" }, "password must contain a lowercase letter"],
      [{ password: "Abcdefgh" }, "password must contain a digit"],
      [{ tenant: "" }, "tenant must not be empty"],
      [{ tenant: "t".repeat(101) }, "tenant must be at most 100 characters"],
      [{ tenant: "acme corp" }, "tenant may contain only letters a-z, digits, hyphens and underscores"],
      [{ tenant: "acme.org" }, "tenant may contain only letters a-z, digits, hyphens and underscores"],
      [{ tenant: "acme/../x" }, "tenant may contain only letters a-z, digits, hyphens and underscores"],
      [{ tenant: "écoles" }, "tenant may contain only letters a-z, digits, hyphens and underscores"],
      [{ email: "not-an-email" }, "email must be a valid email address"],
      [{ email: 7 }, "email must be a string"],
      [{ is_issuer: "yes" }, "is_issuer must be a boolean"],
      [{ is_verifier: 0 }, "is_verifier must be a boolean"],
    ])("rejects %j", async (overrides, message) => {
      await expectInvalid(valid(overrides), message);
    });

    it.each(["u-", "svc-", "admin-", "api-", "www-", "U-", "SVC-", "Admin-", "API-", "WWW-"])(
      "rejects the reserved prefix %s (after lowercasing)",
      async (prefix) => {
        await expectInvalid(
          valid({ tenant: `${prefix}acme` }),
          "tenant must not start with a reserved prefix (u-, svc-, admin-, api-, www-)",
        );
      },
    );

    it("accepts names that merely contain a reserved word", async () => {
      await registerOrganization(registry.app, { tenant: `myapi-${uniqueTenant()}` });
      await registerOrganization(registry.app, { tenant: `u${uniqueTenant()}` });
    });
  });

  describe("409", () => {
    it("refuses an email already registered, ignoring case", async () => {
      const email = `Ops.${uniqueTenant()}@Example.com`;
      await registerOrganization(registry.app, { email });
      const response = await apply(registry.app, valid({ email: email.toLowerCase() }));
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 409,
        body: { error: "conflict", message: `Email '${email.toLowerCase()}' already exists` },
      });
    });

    it("refuses a tenant already registered", async () => {
      const organization = await registerOrganization(registry.app);
      const response = await apply(registry.app, valid({ tenant: organization.tenant }));
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 409,
        body: { error: "conflict", message: `Tenant '${organization.tenant}' already exists` },
      });
    });

    it("lets exactly one of concurrent applications for the same tenant win", async () => {
      const tenant = uniqueTenant("race");
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) => apply(registry.app, valid({ tenant, email: `r${i}-${tenant}@x.example` }))),
      );
      const statuses = responses.map((r) => r.statusCode).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
      for (const loser of responses.filter((r) => r.statusCode === 409)) {
        expect(loser.json()).toEqual({ error: "conflict", message: `Tenant '${tenant}' already exists` });
      }
      const rows = await registry.db
        .selectFrom("tenants")
        .select("account_uuid")
        .where("tenant", "=", tenant)
        .execute();
      expect(rows).toHaveLength(1);
    });

    it("lets exactly one of concurrent applications with the same email win", async () => {
      const email = `race-${uniqueTenant()}@x.example`;
      const responses = await Promise.all(Array.from({ length: 6 }, () => apply(registry.app, valid({ email }))));
      expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      for (const loser of responses.filter((r) => r.statusCode === 409)) {
        expect(loser.json()).toEqual({ error: "conflict", message: `Email '${email}' already exists` });
      }
    });
  });

  describe("429", () => {
    it("refuses a client IP beyond 100 requests per minute while another IP still passes", async () => {
      const ip = nextIp();
      for (let i = 0; i < 100; i++) {
        const response = await apply(registry.app, {}, ip);
        expect(response.statusCode).toBe(400);
      }
      const refused = await apply(registry.app, valid(), ip);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({ error: "rate_limited", message: "Too many requests, try again later" });
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);

      const otherIp = await apply(registry.app, valid(), nextIp());
      expect(otherIp.statusCode).toBe(201);
    });
  });
});

describe("POST /v1/apply when the schema registry is unreachable", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry({ schemaRegistry: "down" });
  });
  afterAll(async () => {
    await registry?.close();
  });

  it("answers 503 and creates nothing", async () => {
    const tenant = uniqueTenant();
    const response = await apply(registry.app, { name: "Acme", password: PASSWORD, tenant });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 503,
      body: { error: "unavailable", message: "Schema registry is unavailable" },
    });
    expect(await registry.db.selectFrom("tenants").selectAll().execute()).toEqual([]);
    expect(await registry.db.selectFrom("api_keys").selectAll().execute()).toEqual([]);
  });
});
