import { Writable } from "node:stream";
import { AppError, OAuthError } from "@attesto/runtime/errors";
import { type App, createApp, rateLimit } from "@attesto/runtime/http";
import { loggerOptions } from "@attesto/runtime/logging";
import { createServiceMetrics, type ServiceMetrics } from "@attesto/runtime/telemetry";
import { createPostgresRateLimitCounter, createTestDatabase, type TestDatabase } from "@attesto/store";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SECURITY_HEADERS } from "./support/security-headers.js";

const config = {
  LOG_LEVEL: "silent",
  BODY_LIMIT_BYTES: 2048,
  REQUEST_TIMEOUT_MS: 5000,
  CORS_ORIGINS: "*",
  TRUST_PROXY: false,
} as const;

describe("createApp", () => {
  let app: App;
  let metrics: ServiceMetrics;
  let database: TestDatabase<unknown>;

  beforeAll(async () => {
    database = await createTestDatabase();
    metrics = createServiceMetrics("test-service");
    app = await createApp({ service: "test-service", version: "1.2.3", config, metrics });
    app.post(
      "/things",
      {
        schema: {
          body: z.object({
            name: z.string().min(1),
            count: z.number().int().optional(),
            kind: z.enum(["a", "b"]).optional(),
            id: z.uuid().optional(),
          }),
        },
      },
      async (req) => ({
        received: req.body,
      }),
    );
    app.get(
      "/search",
      { schema: { querystring: z.object({ limit: z.coerce.number().int().max(10) }) } },
      async (req) => req.query,
    );
    app.post(
      "/oauth",
      { config: { errorShape: "oauth" }, schema: { body: z.object({ grant_type: z.string() }) } },
      async (req) => req.body,
    );
    app.get("/items/:id", async (req) => req.params);
    app.get("/boom", async () => {
      throw new Error("database password is hunter2");
    });
    app.get("/teapot", async () => {
      throw new AppError(409, "conflict", "Tenant 'acme' already exists", { headers: { "x-hint": "1" } });
    });
    app.get("/oauth-error", async () => {
      throw new OAuthError(400, "use_dpop_nonce", "Use the DPoP nonce", { headers: { "DPoP-Nonce": "n1" } });
    });
    const counter = createPostgresRateLimitCounter(database.db as never);
    app.post("/limited", { preHandler: rateLimit(counter, { name: "test", max: 2, windowSeconds: 60 }) }, async () => ({
      ok: true,
    }));
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it("answers GET /health exactly as the spec says", async () => {
    const res = await app.inject({ method: "GET", url: "/health" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok", service: "test-service", version: "1.2.3" });
  });

  it("gives every response a request id and honours an incoming one", async () => {
    const generated = await app.inject({ method: "GET", url: "/health" });
    expect(generated.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await app.inject({ method: "GET", url: "/health", headers: { "x-request-id": "abc-123" } });
    expect(echoed.headers["x-request-id"]).toBe("abc-123");
  });

  it("uses an incoming X-Request-Id only when it is a plain token (no log forging, no markup echoed)", async () => {
    const plain = "trace.01:ab-CD_9";
    expect((await app.inject({ url: "/health", headers: { "x-request-id": plain } })).headers["x-request-id"]).toBe(
      plain,
    );
    for (const hostile of [
      '<script>alert(1)</script>" injected=1',
      "a b",
      "x".repeat(129),
      "id\u000ainjected",
      "é",
      "",
    ]) {
      const response = await app.inject({ url: "/health", headers: { "x-request-id": hostile } });
      expect({ hostile, id: response.headers["x-request-id"] }).toEqual({
        hostile,
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      });
    }
  });

  it("sets helmet's security headers, without CSP and with a cross-origin resource policy, on every response", async () => {
    const expected = SECURITY_HEADERS;
    for (const url of ["/health", "/no-such-route"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.headers).toMatchObject(expected);
      expect(res.headers["content-security-policy"]).toBeUndefined();
      expect(res.headers["x-powered-by"]).toBeUndefined();
    }
  });

  it("exposes DPoP-Nonce and WWW-Authenticate through CORS", async () => {
    const res = await app.inject({
      method: "OPTIONS",
      url: "/things",
      headers: { origin: "https://wallet.example", "access-control-request-method": "POST" },
    });
    expect(res.statusCode).toBe(204);
    const get = await app.inject({ method: "GET", url: "/health", headers: { origin: "https://wallet.example" } });
    expect(get.headers["access-control-expose-headers"]).toContain("DPoP-Nonce");
    expect(get.headers["access-control-expose-headers"]).toContain("WWW-Authenticate");
  });

  it("answers schema failures with 400 naming the field", async () => {
    const res = await app.inject({ method: "POST", url: "/things", payload: { name: "" } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: "invalid_request",
      message: "name must not be empty",
      errors: [{ field: "name", message: "must not be empty" }],
    });
    const query = await app.inject({ method: "GET", url: "/search?limit=abc" });
    expect(query.statusCode).toBe(400);
    expect(query.json().errors).toEqual([{ field: "limit", message: "must be a number" }]);
  });

  it("lists every failing field in one answer, in one wording", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/things",
      payload: { count: 1.5, kind: "c", id: "not-a-uuid" },
    });
    expect(res.statusCode).toBe(400);
    const errors = [
      { field: "name", message: "is required" },
      { field: "count", message: "must be an integer" },
      { field: "kind", message: "must be one of a, b" },
      { field: "id", message: "must be a UUID" },
    ];
    expect(res.json()).toEqual({
      error: "invalid_request",
      message: "name is required; count must be an integer; kind must be one of a, b; id must be a UUID",
      errors,
    });
    const notAnObject = await app.inject({ method: "POST", url: "/things", payload: [1] });
    expect(notAnObject.json()).toEqual({
      error: "invalid_request",
      message: "body must be a JSON object",
      errors: [{ field: "body", message: "must be a JSON object" }],
    });
  });

  it("uses the OAuth error shape on OAuth routes", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/oauth",
      payload: "x=1",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: "invalid_request",
      error_description: "grant_type is required",
      errors: [{ field: "grant_type", message: "is required" }],
    });
    const nonce = await app.inject({ method: "GET", url: "/oauth-error" });
    expect(nonce.statusCode).toBe(400);
    expect(nonce.headers["dpop-nonce"]).toBe("n1");
    expect(nonce.json()).toEqual({ error: "use_dpop_nonce", error_description: "Use the DPoP nonce" });
  });

  it("parses form bodies", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/oauth",
      payload: "grant_type=authorization_code",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.json()).toEqual({ grant_type: "authorization_code" });
  });

  it("hides internals on 500", async () => {
    const res = await app.inject({ method: "GET", url: "/boom" });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: "server_error", message: "Internal server error" });
    expect(res.body).not.toContain("hunter2");
  });

  it("serialises AppErrors with their status, code, message and headers", async () => {
    const res = await app.inject({ method: "GET", url: "/teapot" });
    expect(res.statusCode).toBe(409);
    expect(res.headers["x-hint"]).toBe("1");
    expect(res.json()).toEqual({ error: "conflict", message: "Tenant 'acme' already exists" });
  });

  it("rejects malformed JSON, oversized bodies and unknown routes with 4xx", async () => {
    const bad = await app.inject({
      method: "POST",
      url: "/things",
      payload: "{",
      headers: { "content-type": "application/json" },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe("invalid_request");
    const big = await app.inject({ method: "POST", url: "/things", payload: { name: "x".repeat(4096) } });
    expect(big.statusCode).toBe(413);
    expect(big.json().error).toBe("payload_too_large");
    const missing = await app.inject({ method: "GET", url: "/nowhere?x=1" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: "not_found", message: "Route not found" });
    const badUrl = await app.inject({ method: "GET", url: "/search/%E0%A4%A" });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.json().error).toBe("invalid_request");
    const longParam = await app.inject({ method: "GET", url: `/items/${"x".repeat(600)}` });
    expect(longParam.statusCode).toBe(414);
    expect(longParam.json()).toEqual({ error: "uri_too_long", message: expect.any(String) });
    const media = await app.inject({
      method: "POST",
      url: "/things",
      payload: "x",
      headers: { "content-type": "text/csv" },
    });
    expect(media.statusCode).toBe(415);
  });

  it("rate-limits with counters in PostgreSQL and answers 429 with Retry-After", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.inject({ method: "POST", url: "/limited" })).statusCode);
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await app.inject({ method: "POST", url: "/limited" });
    expect(refused.headers["retry-after"]).toMatch(/^\d+$/);
    expect(refused.json()).toEqual({ error: "rate_limited", message: "Too many requests, try again later" });
  });

  it("records RED metrics per route", async () => {
    await app.inject({ method: "GET", url: "/health" });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(
      /http_requests_total\{method="GET",route="\/health",status_code="200",service="test-service"\} \d+/,
    );
    expect(text).toContain("http_request_duration_seconds_bucket");
  });
});

describe("logger", () => {
  /** A logger with the service's options whose lines are collected in memory. */
  function captureLogs() {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    return { lines, log: pino(loggerOptions("svc", "info"), sink) };
  }

  it("keeps error codes (err.code) visible: only OAuth codes in bodies and query strings are redacted", () => {
    const { lines, log } = captureLogs();
    log.warn({ err: { code: "ECONNREFUSED" }, req: { query: { code: "qc0de" } } });
    const line = lines.join("");
    expect(JSON.parse(line).err).toEqual({ code: "ECONNREFUSED" });
    expect(line).not.toContain("qc0de");
  });

  it("logs request URLs with their path and only allow-listed query values", () => {
    const { lines, log } = captureLogs();
    log.info({
      req: {
        method: "POST",
        url: "/credential?access_token=tok3n&client_id=wallet&request_uri=urn:x:r3q",
        host: "issuer.example",
        ip: "10.0.0.1",
      },
    });
    const line = lines.join("");
    expect(JSON.parse(line).req).toEqual({
      method: "POST",
      url: "/credential?access_token=[redacted]&client_id=wallet&request_uri=[redacted]",
      host: "issuer.example",
      remoteAddress: "10.0.0.1",
    });
    expect(line).not.toContain("tok3n");
    expect(line).not.toContain("r3q");
  });

  it("redacts credentials, passwords, keys and codes", () => {
    const { lines, log } = captureLogs();
    log.info({
      req: { headers: { authorization: "Bearer abc", "x-api-key": "key_production_1", dpop: "proof" } },
      body: { password: "Secret123", private_key: "pk", code: "c0de", "pre-authorized_code": "pac", name: "ok" },
    });
    const line = lines.join("");
    for (const secret of ["Bearer abc", "key_production_1", "proof", "Secret123", '"pk"', "c0de", "pac"]) {
      expect(line).not.toContain(secret);
    }
    expect(JSON.parse(line)).toMatchObject({
      service: "svc",
      level: "info",
      body: { name: "ok", password: "[redacted]" },
    });
  });
});
