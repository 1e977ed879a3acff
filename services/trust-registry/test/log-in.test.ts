import { randomUUID } from "node:crypto";
import { invalidFieldsBody } from "@attesto/runtime/testing";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logIn, type Organization, registerOrganization } from "./support/organizations.js";
import { LOGIN_TOKEN_SECRET, PUBLIC_URL, startTestRegistry, type TestRegistry } from "./support/test-registry.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const invalidCredentials = { error: "unauthorized", message: "Invalid UUID or password" };

describe("POST /v1/auth/login", () => {
  let registry: TestRegistry;
  let organization: Organization;
  beforeAll(async () => {
    registry = await startTestRegistry();
    organization = await registerOrganization(registry.app);
  });
  afterAll(async () => {
    await registry?.close();
  });

  /** A fresh organization, so that each test has its own 5-attempt budget. */
  const freshOrganization = () => registerOrganization(registry.app);

  it("returns a Bearer access token valid for 3600 s", async () => {
    const response = await logIn(registry.app, { uuid: organization.uuid, password: organization.password });
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    const body = response.json();
    expect(body).toEqual({ access_token: expect.any(String), token_type: "Bearer", expires_in: 3600 });

    expect(decodeProtectedHeader(body.access_token)).toEqual({ alg: "HS256", typ: "JWT" });
    const { payload } = await jwtVerify(body.access_token, new TextEncoder().encode(LOGIN_TOKEN_SECRET), {
      algorithms: ["HS256"],
    });
    expect(payload).toEqual({
      iss: PUBLIC_URL,
      sub: organization.uuid,
      tenant: organization.tenant,
      iat: expect.any(Number),
      exp: (payload.iat as number) + 3600,
      jti: expect.stringMatching(UUID_V4),
    });
    expect(Math.abs((payload.iat as number) - Date.now() / 1000)).toBeLessThan(60);
  });

  it("gives every token its own jti", async () => {
    const first = await freshOrganization();
    const tokens = await Promise.all(
      [0, 1].map(
        async () => (await logIn(registry.app, { uuid: first.uuid, password: first.password })).json().access_token,
      ),
    );
    const [a, b] = await Promise.all(
      tokens.map(async (token) => (await jwtVerify(token, new TextEncoder().encode(LOGIN_TOKEN_SECRET))).payload.jti),
    );
    expect(a).not.toBe(b);
  });

  it("accepts the UUID in upper case", async () => {
    const fresh = await freshOrganization();
    const response = await logIn(registry.app, { uuid: fresh.uuid.toUpperCase(), password: fresh.password });
    expect(response.statusCode).toBe(200);
  });

  describe("400", () => {
    const expectInvalid = async (body: unknown, message: string) => {
      const response = await logIn(registry.app, body);
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 400,
        body: invalidFieldsBody(message),
      });
    };

    it.each([
      [{ password: "Abcdefg1" }, "uuid is required"],
      [{ uuid: "not-a-uuid", password: "Abcdefg1" }, "uuid must be a UUID v4"],
      [{ uuid: "6ba7b810-9dad-11d1-80b4-00c04fd430c8", password: "Abcdefg1" }, "uuid must be a UUID v4"],
      [{ uuid: 12, password: "Abcdefg1" }, "uuid must be a string"],
    ])("rejects a bad uuid: %j", async (body, message) => {
      await expectInvalid(body, message);
    });

    it.each([
      [{}, "password is required"],
      [{ password: "Short1A" }, "password must be at least 8 characters"],
      [{ password: "alllower1" }, "password must contain an uppercase letter"],
      [{ password: "ALLUPPER1" }, "password must contain a lowercase letter"],
      [{ password: "NoDigitsHere" }, "password must contain a digit"],
    ])("rejects a password violating the policy: %j", async (overrides, message) => {
      await expectInvalid({ uuid: randomUUID(), ...overrides }, message);
    });
  });

  describe("401", () => {
    it("refuses an unknown UUID", async () => {
      const response = await logIn(registry.app, { uuid: randomUUID(), password: "Abcdefg1" });
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 401, body: invalidCredentials });
    });

    it("refuses a wrong password", async () => {
      const fresh = await freshOrganization();
      const response = await logIn(registry.app, { uuid: fresh.uuid, password: "Wrong-Password-9" });
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 401, body: invalidCredentials });
    });

    it("refuses an account created by the operator, which has no password", async () => {
      const { tenant } = await registry.tenantService.applyTenant({
        tenant: `op-${randomUUID().slice(0, 8)}`,
        name: "Operator Org",
        isIssuer: true,
        isVerifier: true,
      });
      const response = await logIn(registry.app, { uuid: tenant!.accountUuid, password: "Abcdefg1" });
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 401, body: invalidCredentials });
    });
  });

  describe("429 throttle: 5 attempts per 60 s per UUID", () => {
    it("refuses the 6th attempt even with the right password", async () => {
      const fresh = await freshOrganization();
      for (let attempt = 1; attempt <= 5; attempt++) {
        const response = await logIn(registry.app, { uuid: fresh.uuid, password: "Wrong-Password-9" });
        expect(response.statusCode).toBe(401);
      }
      const sixth = await logIn(registry.app, { uuid: fresh.uuid, password: fresh.password });
      expect({ status: sixth.statusCode, body: sixth.json() }).toEqual({
        status: 429,
        body: { error: "rate_limited", message: "Too many login attempts, try again later" },
      });
      const retryAfter = Number(sixth.headers["retry-after"]);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    });

    it("counts successful attempts too, and per UUID (whatever its case)", async () => {
      const fresh = await freshOrganization();
      for (let attempt = 1; attempt <= 5; attempt++) {
        const uuid = attempt % 2 ? fresh.uuid : fresh.uuid.toUpperCase();
        expect((await logIn(registry.app, { uuid, password: fresh.password })).statusCode).toBe(200);
      }
      expect((await logIn(registry.app, { uuid: fresh.uuid, password: fresh.password })).statusCode).toBe(429);

      const other = await freshOrganization();
      expect((await logIn(registry.app, { uuid: other.uuid, password: other.password })).statusCode).toBe(200);
    });
  });
});
