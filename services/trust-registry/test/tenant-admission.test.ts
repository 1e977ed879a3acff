import { tenantV1 } from "@attesto/proto";
import { AppError } from "@attesto/runtime/errors";
import { createApiKeyAuthenticator } from "@attesto/tenant-client";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessTokenOf, apply, PASSWORD, registerOrganization, uniqueTenant } from "./support/organizations.js";
import { tenantServiceAs } from "./support/tenant-service-as.js";
import { startTestRegistry, type TestRegistry } from "./support/test-registry.js";

const { ApiKeyOutcome } = tenantV1;

const failureOf = async (call: Promise<unknown>) => {
  const error = ConnectError.from(
    await call.then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  return { code: Code[error.code], message: error.rawMessage };
};

/** What an API-key endpoint of the issuer or verifier answers for this key (the runtime's authenticator). */
async function apiKeyAnswer(registry: TestRegistry, apiKey: string) {
  const authenticator = createApiKeyAuthenticator(tenantServiceAs(registry, "credential-issuer"));
  try {
    const tenant = await authenticator.authenticate(apiKey);
    return { status: 200, tenant: tenant.tenant };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, message: error.message };
  }
}

const application = (overrides: Record<string, unknown> = {}) => ({
  name: "Acme University",
  password: PASSWORD,
  tenant: uniqueTenant(),
  ...overrides,
});

describe("tenant admission: TENANT_ADMISSION=open (the default)", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(() => registry?.close());

  it("approves every applicant at once; its API key works", async () => {
    expect(registry.config.TENANT_ADMISSION).toBe("open");
    const response = await apply(registry.app, application());
    expect(response.statusCode).toBe(201);
    expect(response.json().status).toBe("APPROVED");
    expect(await apiKeyAnswer(registry, response.json().api_key)).toMatchObject({ status: 200 });
  });
});

describe("tenant admission: TENANT_ADMISSION=approval", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry({ env: { TENANT_ADMISSION: "approval" } });
  });
  afterAll(() => registry?.close());

  it("creates the account PENDING: its key answers 401 `Account is not approved` until the operator approves it", async () => {
    const body = application();
    const response = await apply(registry.app, body);
    expect(response.statusCode).toBe(201);
    const { uuid, status, api_key: apiKey } = response.json();
    expect(status).toBe("PENDING");
    expect(await apiKeyAnswer(registry, apiKey)).toEqual({ status: 401, message: "Account is not approved" });
    expect((await registry.tenantServiceAs("credential-issuer").authenticateApiKey({ apiKey })).outcome).toBe(
      ApiKeyOutcome.NOT_APPROVED,
    );
    // The organization may log in, but may not act (DID operations) while pending.
    const token = await accessTokenOf(registry.app, { uuid, tenant: body.tenant, apiKey, password: PASSWORD });
    const did = await registry.app.inject({
      method: "POST",
      url: "/v1/did",
      headers: { authorization: `Bearer ${token}` },
      payload: {},
    });
    expect(did.statusCode).toBe(403);

    const operator = tenantServiceAs(registry, "operator");
    const approved = await operator.approveTenant({ tenant: body.tenant });
    expect(approved).toMatchObject({ approved: true, tenant: { tenant: body.tenant, status: "APPROVED" } });
    expect(await apiKeyAnswer(registry, apiKey)).toEqual({ status: 200, tenant: body.tenant });
    // Idempotent.
    expect((await operator.approveTenant({ tenant: body.tenant })).approved).toBe(false);
  });

  it("ApproveTenant is the operator's alone, and NOT_FOUND for an unknown tenant", async () => {
    const organization = await registerOrganization(registry.app);
    for (const caller of ["credential-issuer", "verifier", "holder", "scheduler", "auth-server"] as const) {
      expect(await failureOf(tenantServiceAs(registry, caller).approveTenant({ tenant: organization.tenant }))).toEqual(
        {
          code: "PermissionDenied",
          message: `attesto.tenant.v1.TenantService/ApproveTenant may not be called by '${caller}'`,
        },
      );
    }
    expect(await apiKeyAnswer(registry, organization.apiKey)).toEqual({
      status: 401,
      message: "Account is not approved",
    });
    const operator = tenantServiceAs(registry, "operator");
    expect((await failureOf(operator.approveTenant({ tenant: uniqueTenant() }))).code).toBe("NotFound");
    expect((await failureOf(operator.approveTenant({ tenant: "Not A Tenant!" }))).code).toBe("InvalidArgument");
  });

  it("a tenant the operator declares (Tenant resource, ApplyTenant) is approved, also one that applied and waits", async () => {
    const operator = tenantServiceAs(registry, "operator");
    const waiting = await registerOrganization(registry.app);
    const applied = await operator.applyTenant({
      tenant: waiting.tenant,
      name: "Acme University",
      isIssuer: true,
      isVerifier: true,
    });
    expect(applied.tenant?.status).toBe("APPROVED");
    expect(await apiKeyAnswer(registry, waiting.apiKey)).toEqual({ status: 200, tenant: waiting.tenant });

    const declared = await operator.applyTenant({ tenant: uniqueTenant(), name: "Declared", isIssuer: true });
    expect(declared.tenant?.status).toBe("APPROVED");
    expect(await apiKeyAnswer(registry, declared.apiKey)).toMatchObject({ status: 200 });
  });
});

describe("tenant admission: TENANT_ADMISSION=closed", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry({ env: { TENANT_ADMISSION: "closed" } });
  });
  afterAll(() => registry?.close());

  it("refuses self-registration with 403, whatever the body, and creates nothing", async () => {
    const closed = {
      error: "forbidden",
      message: "Self-service registration is closed: tenants are created by the platform operator",
    };
    const body = application();
    for (const payload of [body, {}, { tenant: "x" }]) {
      const response = await apply(registry.app, payload);
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 403, body: closed });
    }
    expect(await registry.domain.tenants.findByTenant(body.tenant)).toBeUndefined();
  });

  it("tenants still come from the operator", async () => {
    const declared = await tenantServiceAs(registry, "operator").applyTenant({
      tenant: uniqueTenant(),
      name: "Declared",
      isIssuer: true,
    });
    expect(declared.tenant?.status).toBe("APPROVED");
    expect(await apiKeyAnswer(registry, declared.apiKey)).toMatchObject({ status: 200 });
  });

  it("an unknown TENANT_ADMISSION value is a configuration error", async () => {
    await expect(startTestRegistry({ env: { TENANT_ADMISSION: "anyone" } })).rejects.toThrow(/TENANT_ADMISSION/);
  });
});
