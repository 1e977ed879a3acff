import { tenantV1 } from "@attesto/proto";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, logIn, PASSWORD, registerOrganization, uniqueTenant } from "./support/organizations.js";
import { tenantServiceAs } from "./support/tenant-service-as.js";
import { CREDENTIAL_ISSUER_URL, startTestRegistry, type TestRegistry } from "./support/test-registry.js";

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

describe("TenantService.DeleteTenant and RevokeApiKeys (operator)", () => {
  let registry: TestRegistry;
  let operator: Client<typeof tenantV1.TenantService>;
  /** The credential issuer: the one that authenticates API keys (with the verifier). */
  let issuer: Client<typeof tenantV1.TenantService>;
  beforeAll(async () => {
    registry = await startTestRegistry();
    operator = tenantServiceAs(registry, "operator");
    issuer = tenantServiceAs(registry, "credential-issuer");
  });
  afterAll(async () => {
    await registry?.close();
  });

  it("DeleteTenant deactivates: keys stop authenticating, the tenant is unknown everywhere, its id stays taken", async () => {
    const organization = await registerOrganization(registry.app, { email: `${uniqueTenant()}@example.org` });
    await operator.setWebhooks({ tenant: organization.tenant, webhooks: [{ url: "https://hooks.example/x" }] });

    const deleted = await operator.deleteTenant({ tenant: organization.tenant.toUpperCase() });
    expect(deleted).toMatchObject({ found: true, deactivated: true, revokedApiKeys: 1 });

    expect((await issuer.authenticateApiKey({ apiKey: organization.apiKey })).outcome).toBe(ApiKeyOutcome.INVALID);
    expect(await failureOf(operator.getTenant({ tenant: organization.tenant }))).toEqual({
      code: "NotFound",
      message: "Tenant not found",
    });
    expect((await logIn(registry.app, { uuid: organization.uuid, password: organization.password })).statusCode).toBe(
      401,
    );
    expect(
      (await registry.app.inject({ method: "GET", url: `/.well-known/did-configuration.json/${organization.tenant}` }))
        .statusCode,
    ).toBe(404);
    expect(
      await failureOf(tenantServiceAs(registry, "scheduler").getWebhooks({ tenant: organization.tenant })),
    ).toEqual({ code: "NotFound", message: "Tenant not found" });
    // Data kept: the row is there, and nobody can register the identifier again.
    const row = await registry.db
      .selectFrom("tenants")
      .select(["deactivated_at"])
      .where("tenant", "=", organization.tenant)
      .executeTakeFirst();
    expect(row?.deactivated_at).toBeInstanceOf(Date);
    expect(
      await registry.db.selectFrom("tenant_webhooks").selectAll().where("tenant", "=", organization.tenant).execute(),
    ).toEqual([]);
    const again = await apply(registry.app, { name: "Squatter", password: PASSWORD, tenant: organization.tenant });
    expect({ status: again.statusCode, message: again.json().message }).toEqual({
      status: 409,
      message: `Tenant '${organization.tenant}' already exists`,
    });
    // Operator actions on the deactivated tenant: NotFound, not a silently re-enabled key.
    expect((await failureOf(operator.replaceApiKey({ tenant: organization.tenant }))).code).toBe("NotFound");
    expect((await failureOf(operator.revokeApiKeys({ tenant: organization.tenant }))).code).toBe("NotFound");
  });

  it("is idempotent: a second delete and an unknown tenant succeed without effect", async () => {
    const organization = await registerOrganization(registry.app);
    await operator.deleteTenant({ tenant: organization.tenant });
    expect(await operator.deleteTenant({ tenant: organization.tenant })).toMatchObject({
      found: true,
      deactivated: false,
      revokedApiKeys: 0,
    });
    expect(await operator.deleteTenant({ tenant: uniqueTenant("never") })).toMatchObject({
      found: false,
      deactivated: false,
      revokedApiKeys: 0,
    });
  });

  it("ApplyTenant reactivates a deleted tenant with a new key; the old key stays revoked", async () => {
    const tenant = uniqueTenant("ops");
    const created = await operator.applyTenant({ tenant, name: "Ops Org", isIssuer: true, isVerifier: true });
    await operator.deleteTenant({ tenant });
    const reactivated = await operator.applyTenant({ tenant, name: "Ops Org 2", isIssuer: true, isVerifier: false });
    expect(reactivated.apiKey).toMatch(/^attesto_production_[0-9a-f]{48}$/);
    expect(reactivated.apiKey).not.toBe(created.apiKey);
    expect(reactivated.tenant).toMatchObject({ accountUuid: created.tenant?.accountUuid, name: "Ops Org 2" });
    expect((await issuer.authenticateApiKey({ apiKey: created.apiKey })).outcome).toBe(ApiKeyOutcome.INVALID);
    expect((await issuer.authenticateApiKey({ apiKey: reactivated.apiKey })).outcome).toBe(ApiKeyOutcome.VALID);
    // GetTenant says since when (the credential issuer keeps offers made before expired); never set before.
    expect(created.tenant?.reactivatedAt).toBeUndefined();
    const { tenant: after } = await operator.getTenant({ tenant });
    expect(after?.reactivatedAt).toBeDefined();
    expect(after?.reactivatedAt).toEqual(reactivated.tenant?.reactivatedAt);
    // Active again: a further apply reveals nothing.
    expect((await operator.applyTenant({ tenant, name: "Ops Org 2", isIssuer: true, isVerifier: false })).apiKey).toBe(
      "",
    );
  });

  it("GetIssuerStanding follows the lifecycle at once, and each transition is in the audit record with its caller", async () => {
    const tenant = uniqueTenant("life");
    await operator.applyTenant({ tenant, name: "Life Org", isIssuer: true, isVerifier: true });
    const verifier = tenantServiceAs(registry, "verifier");
    const iss = `${CREDENTIAL_ISSUER_URL}/${tenant}`;
    const { IssuerStanding } = tenantV1;
    expect(await verifier.getIssuerStanding({ iss })).toMatchObject({ standing: IssuerStanding.ACTIVE, tenant });
    await operator.deleteTenant({ tenant });
    expect(await verifier.getIssuerStanding({ iss })).toMatchObject({ standing: IssuerStanding.DEACTIVATED, tenant });
    expect((await verifier.getIssuerStanding({ iss: `${CREDENTIAL_ISSUER_URL}/${tenant}-other` })).standing).toBe(
      IssuerStanding.UNKNOWN,
    );
    expect((await verifier.getIssuerStanding({ iss: "https://elsewhere.example/x" })).standing).toBe(
      IssuerStanding.UNKNOWN,
    );
    await operator.applyTenant({ tenant, name: "Life Org", isIssuer: true, isVerifier: true });
    expect((await verifier.getIssuerStanding({ iss })).standing).toBe(IssuerStanding.ACTIVE);
    // Only the verifier may ask (caller policy).
    expect((await failureOf(issuer.getIssuerStanding({ iss }))).code).toBe("PermissionDenied");
    const events = await registry.domain.tenants.listLifecycleEvents(tenant);
    expect(events.map(({ event, actor }) => ({ event, actor }))).toEqual([
      { event: "deactivated", actor: "operator" },
      { event: "reactivated", actor: "operator" },
    ]);
  });

  it("RevokeApiKeys revokes every key without minting one, idempotently", async () => {
    const organization = await registerOrganization(registry.app);
    const replaced = await operator.replaceApiKey({ tenant: organization.tenant });
    expect(await operator.revokeApiKeys({ tenant: organization.tenant })).toMatchObject({ revoked: 1 });
    expect(await operator.revokeApiKeys({ tenant: organization.tenant })).toMatchObject({ revoked: 0 });
    for (const apiKey of [organization.apiKey, replaced.apiKey]) {
      expect((await issuer.authenticateApiKey({ apiKey })).outcome).toBe(ApiKeyOutcome.INVALID);
    }
    // The tenant itself is still there and can get a key again.
    expect((await operator.getTenant({ tenant: organization.tenant })).tenant?.tenant).toBe(organization.tenant);
    const fresh = await operator.replaceApiKey({ tenant: organization.tenant });
    expect((await issuer.authenticateApiKey({ apiKey: fresh.apiKey })).outcome).toBe(ApiKeyOutcome.VALID);
    expect(await failureOf(operator.revokeApiKeys({ tenant: uniqueTenant("none") }))).toEqual({
      code: "NotFound",
      message: "Tenant not found",
    });
  });

  it("refuses other callers and invalid tenant identifiers", async () => {
    const organization = await registerOrganization(registry.app);
    expect(await failureOf(issuer.deleteTenant({ tenant: organization.tenant }))).toEqual({
      code: "PermissionDenied",
      message: "attesto.tenant.v1.TenantService/DeleteTenant may not be called by 'credential-issuer'",
    });
    expect(await failureOf(issuer.revokeApiKeys({ tenant: organization.tenant }))).toEqual({
      code: "PermissionDenied",
      message: "attesto.tenant.v1.TenantService/RevokeApiKeys may not be called by 'credential-issuer'",
    });
    expect((await issuer.authenticateApiKey({ apiKey: organization.apiKey })).outcome).toBe(ApiKeyOutcome.VALID);
    expect((await failureOf(operator.deleteTenant({ tenant: "" }))).code).toBe("InvalidArgument");
    expect((await failureOf(operator.deleteTenant({ tenant: "not a tenant" }))).code).toBe("InvalidArgument");
  });
});
