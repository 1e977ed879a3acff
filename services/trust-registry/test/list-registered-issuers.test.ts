import { tenantV1 } from "@attesto/proto";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TenantServiceRpc } from "../src/rpc/tenant-service.rpc.js";
import { base64, createTenantChain } from "./custody/tenant-chain-kit.js";
import { accessTokenOf, bearer, registerOrganization } from "./support/organizations.js";
import { CREDENTIAL_ISSUER_URL, startTestRegistry, type TestRegistry } from "./support/test-registry.js";

describe("TenantService.ListRegisteredIssuers", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(async () => {
    await registry?.close();
  });

  const list = () =>
    createClient(
      tenantV1.TenantService,
      createRouterTransport((router) => router.service(tenantV1.TenantService, new TenantServiceRpc(registry.domain))),
    ).listRegisteredIssuers({});

  it("lists active issuer tenants with their issuer URL and DIDs, and the platform and imported X.509 roots", async () => {
    const issuer = await registerOrganization(registry.app, { is_issuer: true, is_verifier: false });
    const created = await registry.app.inject({
      method: "POST",
      url: "/v1/did",
      headers: bearer(await accessTokenOf(registry.app, issuer)),
      payload: {},
    });
    expect(created.statusCode).toBe(201);
    const did = created.json().did as string;
    const verifierOnly = await registerOrganization(registry.app, { is_issuer: false, is_verifier: true });
    const removed = await registerOrganization(registry.app, { is_issuer: true });
    const removedChain = await createTenantChain("Removed Org", {
      issuer: `${CREDENTIAL_ISSUER_URL}/${removed.tenant}`,
    });
    await registry.custody.importSigningCertificate(
      removed.tenant,
      [removedChain.leaf, removedChain.intermediate, removedChain.root],
      removedChain.leafKeyPem,
    );
    await registry.domain.tenants.deactivate(removed.tenant);
    const ownChain = await createTenantChain("Issuer Org", { issuer: `${CREDENTIAL_ISSUER_URL}/${issuer.tenant}` });
    await registry.custody.importSigningCertificate(
      issuer.tenant,
      [ownChain.leaf, ownChain.intermediate, ownChain.root],
      ownChain.leafKeyPem,
    );

    const answer = await list();
    const byTenant = new Map(answer.issuers.map((entry) => [entry.tenant, entry]));
    expect(byTenant.get(issuer.tenant)).toMatchObject({
      issuerUrl: `${CREDENTIAL_ISSUER_URL}/${issuer.tenant}`,
      dids: [did],
    });
    expect(byTenant.has(verifierOnly.tenant)).toBe(false);
    expect(byTenant.has(removed.tenant)).toBe(false);
    const platformRoots = await registry.custody.trustAnchors();
    expect(answer.x509Roots).toEqual(expect.arrayContaining([...platformRoots, base64(ownChain.root)]));
    expect(answer.x509Roots).not.toContain(base64(removedChain.root));
  });
});
