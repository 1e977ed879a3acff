import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessTokenOf, bearer, type Organization, registerOrganization } from "./support/organizations.js";
import { LOGIN_TOKEN_SECRET, PUBLIC_URL, startTestRegistry, type TestRegistry } from "./support/test-registry.js";

const secret = new TextEncoder().encode(LOGIN_TOKEN_SECRET);

/** A token signed with the real secret and whatever claims the test wants. */
function signToken(claims: Record<string, unknown>, options: { secret?: Uint8Array; alg?: string } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: PUBLIC_URL, iat: now, exp: now + 3600, jti: randomUUID(), ...claims })
    .setProtectedHeader({ alg: options.alg ?? "HS256", typ: "JWT" })
    .sign(options.secret ?? secret);
}

describe("Bearer login token on the DID routes", () => {
  let registry: TestRegistry;
  let organization: Organization;
  let now = new Date();
  beforeAll(async () => {
    registry = await startTestRegistry({ clock: () => now });
    organization = await registerOrganization(registry.app);
  });
  afterAll(async () => {
    await registry?.close();
  });

  const createDid = (headers: Record<string, string>, payload: unknown = {}) =>
    registry.app.inject({ method: "POST", url: "/v1/did", headers, payload: payload as object });

  const expectInvalidToken = async (headers: Record<string, string>, message: string) => {
    for (const url of ["/v1/did", "/v1/did/import"]) {
      const response = await registry.app.inject({ method: "POST", url, headers, payload: {} });
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 401,
        body: { error: "invalid_token", message },
      });
      expect(response.headers["www-authenticate"]).toBe('Bearer error="invalid_token"');
    }
  };

  it("accepts the login token", async () => {
    const token = await accessTokenOf(registry.app, organization);
    expect((await createDid(bearer(token))).statusCode).toBe(201);
  });

  it("refuses a request without a token, before looking at the body", async () => {
    await expectInvalidToken({}, "Bearer access token is required");
    const response = await registry.app.inject({ method: "POST", url: "/v1/did/import", payload: { did: "x" } });
    expect(response.statusCode).toBe(401);
  });

  it("refuses another scheme or a malformed header", async () => {
    const token = await accessTokenOf(registry.app, organization);
    await expectInvalidToken({ authorization: `Basic ${token}` }, "Bearer access token is required");
    await expectInvalidToken({ authorization: "Bearer" }, "Bearer access token is required");
    await expectInvalidToken({ authorization: "Bearer not-a-jwt" }, "Access token is invalid");
  });

  it("refuses a forged token (other secret, alg none, other issuer)", async () => {
    const claims = { sub: organization.uuid, tenant: organization.tenant };
    await expectInvalidToken(
      bearer(await signToken(claims, { secret: new TextEncoder().encode("z".repeat(32)) })),
      "Access token is invalid",
    );
    const unsigned = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${Buffer.from(
      JSON.stringify({ ...claims, iss: PUBLIC_URL, exp: Math.floor(Date.now() / 1000) + 60 }),
    ).toString("base64url")}.`;
    await expectInvalidToken(bearer(unsigned), "Access token is invalid");
    await expectInvalidToken(
      bearer(await signToken({ ...claims, iss: "https://evil.example" })),
      "Access token is invalid",
    );
    await expectInvalidToken(bearer(await signToken(claims, { alg: "HS512" })), "Access token is invalid");
  });

  it("refuses a token whose tenant claim is not the account's, or whose account is unknown", async () => {
    const other = await registerOrganization(registry.app);
    await expectInvalidToken(
      bearer(await signToken({ sub: organization.uuid, tenant: other.tenant })),
      "Access token is invalid",
    );
    await expectInvalidToken(
      bearer(await signToken({ sub: randomUUID(), tenant: organization.tenant })),
      "Access token is invalid",
    );
    await expectInvalidToken(bearer(await signToken({ sub: organization.uuid })), "Access token is invalid");
  });

  it("refuses an expired token", async () => {
    const fresh = await registerOrganization(registry.app);
    const token = await accessTokenOf(registry.app, fresh);
    now = new Date(now.getTime() + 3601 * 1000);
    try {
      await expectInvalidToken(bearer(token), "Access token has expired");
    } finally {
      now = new Date();
    }
  });

  it("answers 403 Forbidden to an account pending approval", async () => {
    const pending = await registerOrganization(registry.app);
    const token = await accessTokenOf(registry.app, pending);
    await registry.db.updateTable("tenants").set({ status: "PENDING" }).where("tenant", "=", pending.tenant).execute();
    const response = await createDid(bearer(token));
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 403,
      body: { error: "forbidden", message: "Forbidden" },
    });
  });
});
