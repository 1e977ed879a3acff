import { tenantV1 } from "@attesto/proto";
import {
  createRpcClient,
  createServiceCredentialSigner,
  generateServiceIdentityKey,
  type ServiceCredentialSigner,
} from "@attesto/runtime/rpc";
import { testCredentialSigner, testServiceIdentityEnv } from "@attesto/runtime/testing";
import { Code, ConnectError } from "@connectrpc/connect";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyTenant, createOffer, openSession, type Tenant, verificationResult } from "./support/flows.js";
import { startTestPlatform, type TestPlatform } from "./support/platform.js";

/**
 * Least privilege between services and API-key revocation, against the real platform: every
 * service with its own identity key (the test identities, so the test can speak as each one).
 */
const PORT_OFFSET = 22_080;
const TRUST_REGISTRY_INTERNAL = `http://localhost:${9085 + PORT_OFFSET}`;

const tenantServiceAs = (signer: ServiceCredentialSigner) =>
  createRpcClient(tenantV1.TenantService, {
    baseUrl: TRUST_REGISTRY_INTERNAL,
    audience: "trust-registry",
    signer,
    timeoutMs: 10_000,
    retries: 0,
  });

const codeOf = async (call: Promise<unknown>) =>
  Code[
    ConnectError.from(
      await call.then(
        () => undefined,
        (error: unknown) => error,
      ),
    ).code
  ];

describe("service identities on the real platform", () => {
  let platform: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    platform = await startTestPlatform({ portOffset: PORT_OFFSET, label: "hostile_si", env: testServiceIdentityEnv() });
    tenant = await applyTenant(platform.url);
  }, 120_000);
  afterAll(() => platform?.close());

  it("refuses ReplaceApiKey to every service but the operator, and the tenant's key keeps working", async () => {
    for (const caller of ["holder", "credential-issuer", "verifier", "scheduler", "auth-server"] as const) {
      expect({
        caller,
        code: await codeOf(tenantServiceAs(testCredentialSigner(caller)).replaceApiKey(tenant)),
      }).toEqual({ caller, code: "PermissionDenied" });
    }
    await createOffer(platform.url, tenant.apiKey);
  });

  it("refuses a service speaking as the operator: with its own key, an unknown key or the old shared-secret scheme", async () => {
    const holderAsOperator = createServiceCredentialSigner({
      privateKey: testServiceIdentityEnv().HOLDER_SERVICE_IDENTITY_KEY!,
      caller: "operator",
    });
    expect(await codeOf(tenantServiceAs(holderAsOperator).replaceApiKey(tenant))).toBe("Unauthenticated");
    const stranger = createServiceCredentialSigner({ privateKey: generateServiceIdentityKey(), caller: "operator" });
    expect(await codeOf(tenantServiceAs(stranger).replaceApiKey(tenant))).toBe("Unauthenticated");
    const hs256: ServiceCredentialSigner = {
      credentialFor: (audience) =>
        new SignJWT({})
          .setProtectedHeader({ alg: "HS256", typ: "attesto-service+jwt" })
          .setIssuer("operator")
          .setAudience(audience)
          .setIssuedAt()
          .setExpirationTime("5m")
          .sign(new TextEncoder().encode("s".repeat(32))),
    };
    expect(await codeOf(tenantServiceAs(hs256).replaceApiKey(tenant))).toBe("Unauthenticated");
    await createOffer(platform.url, tenant.apiKey);
  });

  it("refuses a replaced API key at once at every service that takes API keys", async () => {
    const fresh = await applyTenant(platform.url);
    // Used first, so any service that remembered accepted keys would now hold this one.
    await createOffer(platform.url, fresh.apiKey);
    const session = await openSession(platform.url, fresh.apiKey);
    expect((await verificationResult(platform.url, fresh.apiKey, session.session_id)).status).toBe(200);

    const { apiKey: replacement } = await tenantServiceAs(testCredentialSigner("operator")).replaceApiKey({
      tenant: fresh.tenant,
    });

    const invalid = /expected 201, got 401 .*Invalid API Key/;
    await expect(createOffer(platform.url, fresh.apiKey)).rejects.toThrow(invalid);
    await expect(openSession(platform.url, fresh.apiKey)).rejects.toThrow(invalid);
    const result = await verificationResult(platform.url, fresh.apiKey, session.session_id);
    expect([result.status, result.json]).toEqual([401, { error: "unauthorized", message: "Invalid API Key" }]);

    await createOffer(platform.url, replacement);
    expect((await verificationResult(platform.url, replacement, session.session_id)).status).toBe(200);
  });
});
