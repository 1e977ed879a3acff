import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessTokenOf, bearer, type Organization, registerOrganization } from "./support/organizations.js";
import { LOGIN_TOKEN_SECRET, PUBLIC_URL, startTestRegistry, type TestRegistry } from "./support/test-registry.js";

describe("tenant isolation", () => {
  let registry: TestRegistry;
  let a: Organization;
  let b: Organization;
  let tokenA: string;
  let tokenB: string;
  beforeAll(async () => {
    registry = await startTestRegistry();
    a = await registerOrganization(registry.app);
    b = await registerOrganization(registry.app);
    tokenA = await accessTokenOf(registry.app, a);
    tokenB = await accessTokenOf(registry.app, b);
  });
  afterAll(async () => {
    await registry?.close();
  });

  const createDid = (token: string, payload: object = {}) =>
    registry.app.inject({ method: "POST", url: "/v1/did", headers: bearer(token), payload });

  it("a token of tenant B cannot take over tenant A's DID, even with its private key", async () => {
    const created = (await createDid(tokenA)).json();
    const response = await registry.app.inject({
      method: "POST",
      url: "/v1/did/import",
      headers: bearer(tokenB),
      payload: { did: created.did, private_key: created.private_key },
    });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 409,
      body: { error: "conflict", message: "DID is already registered to another organization" },
    });
    const row = await registry.db
      .selectFrom("tenant_dids")
      .select("tenant")
      .where("did", "=", created.did)
      .executeTakeFirstOrThrow();
    expect(row.tenant).toBe(a.tenant);
  });

  it("the tenant named in a body is ignored: DIDs land in the token's tenant", async () => {
    const created = (await createDid(tokenA, { tenant: b.tenant })).json();
    const row = await registry.db
      .selectFrom("tenant_dids")
      .select("tenant")
      .where("did", "=", created.did)
      .executeTakeFirstOrThrow();
    expect(row.tenant).toBe(a.tenant);
  });

  it("a token claiming another tenant for its account is refused", async () => {
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ tenant: b.tenant })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(PUBLIC_URL)
      .setSubject(a.uuid)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .setJti(randomUUID())
      .sign(new TextEncoder().encode(LOGIN_TOKEN_SECRET));
    const response = await createDid(forged);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 401,
      body: { error: "invalid_token", message: "Access token is invalid" },
    });
  });

  it("each tenant's DID configuration lists only its own DIDs", async () => {
    const fresh = await registerOrganization(registry.app);
    const token = await accessTokenOf(registry.app, fresh);
    const mine = (await createDid(token)).json();
    await createDid(tokenB);
    const linked = (
      await registry.app.inject({ method: "GET", url: `/.well-known/did-configuration.json/${fresh.tenant}` })
    ).json().linked_dids as string[];
    const issuers = linked.map((jwt) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()).iss);
    expect(issuers).toEqual([mine.did]);
  });

  it("custody refuses one tenant's key to another tenant", async () => {
    const created = (await createDid(tokenA)).json();
    const row = await registry.db
      .selectFrom("tenant_dids")
      .select("custody_key_id")
      .where("did", "=", created.did)
      .executeTakeFirstOrThrow();
    await expect(registry.custody.sign(b.tenant, row.custody_key_id, new Uint8Array([1]))).rejects.toMatchObject({
      status: 404,
    });
  });

  it("an API key resolves to its own tenant only", async () => {
    expect(
      (await registry.tenantServiceAs("credential-issuer").authenticateApiKey({ apiKey: a.apiKey })).tenant?.tenant,
    ).toBe(a.tenant);
    expect(
      (await registry.tenantServiceAs("credential-issuer").authenticateApiKey({ apiKey: b.apiKey })).tenant?.tenant,
    ).toBe(b.tenant);
  });
});
