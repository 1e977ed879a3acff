import { randomUUID } from "node:crypto";
import { invalidFieldsBody } from "@attesto/runtime/testing";
import { decodeJwt, decodeProtectedHeader, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOLDER_TOKEN_SECRET, HOLDER_URL, startTestHolder, type TestHolder } from "./support/test-holder.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("holder accounts: register, login, bearer tokens", () => {
  let holder: TestHolder;
  beforeAll(async () => {
    holder = await startTestHolder();
  });
  afterAll(() => holder.close());

  const register = (payload: unknown) =>
    holder.app.inject({ method: "POST", url: "/v1/user/register", payload: payload as never });
  const login = (payload: unknown) =>
    holder.app.inject({ method: "POST", url: "/v1/user/login", payload: payload as never });

  describe("POST /v1/user/register", () => {
    it("201 with uuid (v4), name and created_at; the password is stored as an argon2id hash", async () => {
      const response = await register({ password: "correct horse", name: "Ada Lovelace" });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toEqual({
        uuid: expect.stringMatching(UUID_V4),
        name: "Ada Lovelace",
        created_at: expect.stringMatching(ISO),
      });
      expect(Object.keys(body).sort()).toEqual(["created_at", "name", "uuid"]);
      const row = await holder.database.pool.query(
        `SELECT password_hash FROM ${holder.database.schema}.users WHERE uuid = $1`,
        [body.uuid],
      );
      expect(row.rows[0].password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(row.rows[0].password_hash).not.toContain("correct horse");
    });

    it("name is optional (null in the answer)", async () => {
      const response = await register({ password: "12345678" });
      expect(response.statusCode).toBe(201);
      expect(response.json().name).toBeNull();
    });

    it("accepts a 100-character name and refuses 101", async () => {
      expect((await register({ password: "12345678", name: "n".repeat(100) })).statusCode).toBe(201);
      const refused = await register({ password: "12345678", name: "n".repeat(101) });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual(invalidFieldsBody("name must be at most 100 characters"));
    });

    it.each([
      ["a 7-character password", { password: "1234567" }, "password must be at least 8 characters"],
      ["no password", { name: "x" }, "password is required"],
      ["a non-string password", { password: 12345678 }, "password must be a string"],
      ["a non-string name", { password: "12345678", name: 5 }, "name must be a string"],
    ])("400 for %s", async (_label, payload, message) => {
      const response = await register(payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(invalidFieldsBody(message));
    });

    it("400 for a body that is not a JSON object", async () => {
      const response = await holder.app.inject({
        method: "POST",
        url: "/v1/user/register",
        headers: { "content-type": "application/json" },
        payload: "[1]",
      });
      expect(response.statusCode).toBe(400);
    });
  });

  describe("POST /v1/user/login", () => {
    it("200 with an HS256 Bearer token valid for 86400 s and the user", async () => {
      const { uuid } = (await register({ password: "s3cret-pass", name: "Grace" })).json();
      const response = await login({ uuid, password: "s3cret-pass" });
      expect(response.statusCode).toBe(200);
      expect(response.headers["cache-control"]).toBe("no-store");
      const body = response.json();
      expect(body).toEqual({
        access_token: expect.any(String),
        token_type: "Bearer",
        expires_in: 86400,
        user: { uuid, name: "Grace" },
      });
      expect(decodeProtectedHeader(body.access_token)).toMatchObject({ alg: "HS256" });
      const claims = decodeJwt(body.access_token);
      expect(claims).toMatchObject({ sub: uuid, iss: HOLDER_URL, aud: "holder" });
      expect(claims.exp! - claims.iat!).toBe(86400);
    });

    it("accepts the uuid in upper case", async () => {
      const { uuid } = (await register({ password: "s3cret-pass" })).json();
      expect((await login({ uuid: uuid.toUpperCase(), password: "s3cret-pass" })).statusCode).toBe(200);
    });

    it.each([
      ["not a UUID", "not-a-uuid"],
      ["a UUID v1", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"],
      ["an empty string", ""],
    ])("400 for a uuid that is %s", async (_label, uuid) => {
      const response = await login({ uuid, password: "whatever1" });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(invalidFieldsBody("uuid must be a UUID v4"));
    });

    it("400 without password", async () => {
      expect((await login({ uuid: randomUUID() })).statusCode).toBe(400);
    });

    it("401 for a wrong password and for an unknown uuid, with the same message", async () => {
      const { uuid } = (await register({ password: "right-password" })).json();
      const wrong = await login({ uuid, password: "wrong-password" });
      const unknown = await login({ uuid: randomUUID(), password: "right-password" });
      expect(wrong.statusCode).toBe(401);
      expect(unknown.statusCode).toBe(401);
      expect(wrong.json()).toEqual({ error: "unauthorized", message: "Invalid UUID or password" });
      expect(unknown.json()).toEqual(wrong.json());
    });
  });

  describe("failed-login throttling per (account, client address), never an account lock", () => {
    const ATTACKER = "203.0.113.7";
    const OWNER = "198.51.100.20";
    const loginFrom = (remoteAddress: string, payload: { uuid: string; password: string }) =>
      holder.app.inject({ method: "POST", url: "/v1/user/login", payload, remoteAddress });
    const throttled = {
      error: "rate_limited",
      message: "Too many failed login attempts from this address, try again later",
    };

    it("an attacker's failures from one address do not stop the owner logging in from another", async () => {
      const { uuid } = (await register({ password: "right-password" })).json();
      for (let i = 0; i < 5; i++) {
        expect((await loginFrom(ATTACKER, { uuid, password: `guess-${i}` })).statusCode).toBe(401);
      }
      // The attacker keeps guessing: answered 429 at once, even for the right password.
      for (const password of ["guess-5", "right-password"]) {
        const refused = await loginFrom(ATTACKER, { uuid, password });
        expect(refused.statusCode).toBe(429);
        expect(refused.json()).toEqual(throttled);
        expect(refused.headers["retry-after"]).toBe("1");
      }
      // The owner, elsewhere, is not affected, however long the attack goes on.
      expect((await loginFrom(OWNER, { uuid, password: "right-password" })).statusCode).toBe(200);
      const ownerWrongOnce = await loginFrom(OWNER, { uuid, password: "typo" });
      expect(ownerWrongOnce.statusCode).toBe(401);
      expect((await loginFrom(OWNER, { uuid, password: "right-password" })).statusCode).toBe(200);
      expect((await loginFrom(ATTACKER, { uuid, password: "guess-6" })).statusCode).toBe(429);
    });

    it("delays grow exponentially with each failure, up to a cap, and are answered with Retry-After", async () => {
      const { uuid } = (await register({ password: "right-password" })).json();
      for (let i = 0; i < 5; i++) await loginFrom(ATTACKER, { uuid, password: `guess-${i}` });
      const waits: number[] = [];
      for (let i = 0; i < 14; i++) {
        const refused = await loginFrom(ATTACKER, { uuid, password: "guess" });
        expect(refused.statusCode).toBe(429);
        const wait = Number(refused.headers["retry-after"]);
        waits.push(wait);
        holder.clock.advance(wait);
        expect((await loginFrom(ATTACKER, { uuid, password: `guess-after-${i}` })).statusCode).toBe(401);
      }
      expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900, 900]);
      // Once the wait is over, the right password works and clears the address's failures.
      holder.clock.advance(900);
      expect((await loginFrom(ATTACKER, { uuid, password: "right-password" })).statusCode).toBe(200);
      for (let i = 0; i < 5; i++) {
        expect((await loginFrom(ATTACKER, { uuid, password: `again-${i}` })).statusCode).toBe(401);
      }
    });

    it("counts an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 address", async () => {
      const { uuid } = (await register({ password: "right-password" })).json();
      for (let i = 0; i < 5; i++) {
        const address = `2001:db8:1:2::${(i + 1).toString(16)}`;
        expect((await loginFrom(address, { uuid, password: `guess-${i}` })).statusCode).toBe(401);
      }
      expect((await loginFrom("2001:db8:1:2:ffff::9", { uuid, password: "guess" })).statusCode).toBe(429);
      expect((await loginFrom("2001:db8:1:3::1", { uuid, password: "right-password" })).statusCode).toBe(200);

      const other = (await register({ password: "right-password" })).json();
      for (let i = 0; i < 5; i++) await loginFrom("192.0.2.50", { uuid: other.uuid, password: `guess-${i}` });
      expect((await loginFrom("::ffff:192.0.2.50", { uuid: other.uuid, password: "guess" })).statusCode).toBe(429);
    });

    it("throttles unknown UUIDs alike (no account enumeration), and concurrent guesses cannot overrun it", async () => {
      const unknown = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => loginFrom("192.0.2.99", { uuid: unknown, password: `guess-${i}` })),
      );
      const statuses = answers.map((answer) => answer.statusCode);
      // Decided one at a time: the fifth failure starts the delay, every later guess waits for it.
      expect(statuses.filter((status) => status === 401)).toHaveLength(5);
      expect(statuses.filter((status) => status === 429)).toHaveLength(7);
    });

    it("successful logins are never throttled", async () => {
      const { uuid } = (await register({ password: "right-password" })).json();
      for (let i = 0; i < 12; i++) {
        expect((await loginFrom(OWNER, { uuid, password: "right-password" })).statusCode).toBe(200);
      }
    });
  });

  describe("Bearer token on every other endpoint", () => {
    const protectedRoutes: Array<{ method: "GET" | "POST" | "DELETE"; url: string }> = [
      { method: "GET", url: "/v1/vc" },
      { method: "GET", url: `/v1/vc/${randomUUID()}` },
      { method: "DELETE", url: `/v1/vc/${randomUUID()}` },
      { method: "POST", url: "/v1/did" },
      { method: "POST", url: "/v1/did/import" },
      { method: "GET", url: "/v1/did" },
      { method: "DELETE", url: "/v1/did/did%3Aledger%3Aabc" },
      { method: "POST", url: "/v1/oid4vci/offer-details" },
      { method: "POST", url: "/v1/oid4vci/receive" },
      { method: "POST", url: "/v1/oid4vp/request-details" },
      { method: "POST", url: "/v1/oid4vp/presentation" },
    ];

    it.each(protectedRoutes)(
      "$method $url: 401 invalid_token without a token (before body validation)",
      async (route) => {
        const response = await holder.app.inject({ ...route, ...(route.method === "POST" ? { payload: {} } : {}) });
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({ error: "invalid_token", message: "Bearer access token is required" });
        expect(response.headers["www-authenticate"]).toBe('Bearer error="invalid_token"');
      },
    );

    async function tokenWith(claims: Record<string, unknown>, secret = HOLDER_TOKEN_SECRET) {
      const now = Math.floor(holder.clock.now.getTime() / 1000);
      return new SignJWT({ iss: HOLDER_URL, aud: "holder", iat: now, exp: now + 60, ...claims })
        .setProtectedHeader({ alg: "HS256" })
        .sign(new TextEncoder().encode(secret));
    }

    it("401 for a malformed token, another scheme, a forged, expired or foreign-audience token, or a vanished user", async () => {
      const account = await holder.account();
      const cases = [
        "Bearer not.a.jwt",
        `Basic ${Buffer.from("a:b").toString("base64")}`,
        `Bearer ${await tokenWith({ sub: account.uuid }, "x".repeat(40))}`,
        `Bearer ${await tokenWith({ sub: account.uuid, exp: Math.floor(holder.clock.now.getTime() / 1000) - 1 })}`,
        `Bearer ${await tokenWith({ sub: account.uuid, aud: "trust-registry" })}`,
        `Bearer ${await tokenWith({ sub: account.uuid, iss: "https://elsewhere.example" })}`,
        `Bearer ${await tokenWith({ sub: randomUUID() })}`,
      ];
      for (const authorization of cases) {
        const response = await holder.app.inject({ method: "GET", url: "/v1/vc", headers: { authorization } });
        expect(response.statusCode, authorization).toBe(401);
        expect(response.json().error).toBe("invalid_token");
      }
      expect((await holder.app.inject({ method: "GET", url: "/v1/vc", headers: account.headers })).statusCode).toBe(
        200,
      );
    });

    it("a login token expires after 86400 s", async () => {
      const account = await holder.account();
      holder.clock.advance(86_401);
      try {
        const response = await holder.app.inject({ method: "GET", url: "/v1/vc", headers: account.headers });
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({ error: "invalid_token", message: "Access token has expired" });
      } finally {
        holder.clock.advance(-86_401);
      }
    });
  });
});
