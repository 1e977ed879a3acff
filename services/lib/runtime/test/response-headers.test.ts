import { AppError } from "@attesto/runtime/errors";
import { type App, createApp } from "@attesto/runtime/http";
import { renderLinkPage, sendLinkPage } from "@attesto/runtime/link-page";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SECURITY_HEADERS } from "./support/security-headers.js";

/**
 * The exact header set of representative answers of the shared app factory: a JSON route (plain
 * and cross-origin), an HTML page with its own CSP, a CORS preflight, error answers. Every header
 * a test or the threat model relies on (helmet's set, HSTS, nosniff, frame options, referrer
 * policy, CORP/COOP, CSP and no-store where a route sets them, CORS where allowed) is pinned by
 * name and value, and nothing else may appear: the per-request work of createApp can change, the
 * answers may not. Only `date` varies; the request id is given.
 */

const base = {
  LOG_LEVEL: "silent",
  BODY_LIMIT_BYTES: 2048,
  REQUEST_TIMEOUT_MS: 5000,
  TRUST_PROXY: false,
} as const;

const REQUEST_ID = "pin-1";

const EXPOSE = "DPoP-Nonce, WWW-Authenticate, X-Request-Id, Retry-After";
const ALLOW_HEADERS =
  "Content-Type, Authorization, DPoP, X-API-Key, OAuth-Client-Attestation, OAuth-Client-Attestation-PoP, X-Request-Id";

async function buildApp(corsOrigins: string): Promise<App> {
  const app = await createApp({
    service: "pin-service",
    version: "1.0.0",
    config: { ...base, CORS_ORIGINS: corsOrigins },
    publicUrl: "https://api.example",
  });
  app.post(
    "/things",
    {
      schema: {
        body: z.object({ name: z.string().min(1) }),
        response: { 200: z.object({ name: z.string(), count: z.number() }) },
      },
    },
    async (request) => ({ name: request.body.name, count: 1 }),
  );
  app.get("/page", async (_request, reply) =>
    sendLinkPage(
      reply,
      renderLinkPage({
        title: "Pin",
        intro: "A page.",
        link: "openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fapi.example%2Fo%2F1",
        qrSvg: "<svg></svg>",
        openLabel: "Open",
        status: { current: "pending", url: "page/status", labels: { pending: "Waiting" }, final: ["done"] },
        expiresAt: "2030-01-01T00:00:00.000Z",
      }),
    ),
  );
  app.get("/boom", async () => {
    throw new Error("internal detail");
  });
  app.get("/refused", async () => {
    throw new AppError(409, "conflict", "Already there", { headers: { "retry-after": "5" } });
  });
  await app.ready();
  return app;
}

/** An answer's headers without `date` (the only one that varies between runs). */
function headersOf(response: { headers: Record<string, unknown> }): Record<string, unknown> {
  const { date, ...rest } = response.headers;
  expect(date).toEqual(expect.any(String));
  return rest;
}

describe("createApp's answers keep their exact header set", () => {
  let open: App;
  let listed: App;
  beforeAll(async () => {
    open = await buildApp("*");
    listed = await buildApp("https://wallet.example, https://rp.example");
  });
  afterAll(async () => {
    await open.close();
    await listed.close();
  });

  const asked = { "x-request-id": REQUEST_ID };
  const fromWallet = { ...asked, origin: "https://wallet.example" };
  const fromElsewhere = { ...asked, origin: "https://evil.example" };
  const preflightOf = (headers: Record<string, string>) => ({
    ...headers,
    "access-control-request-method": "POST",
    "access-control-request-headers": "content-type,dpop",
  });

  /** What every answer carries besides the route's own headers (the request id is not on a preflight). */
  const common = { ...SECURITY_HEADERS, connection: "keep-alive" };
  const json = (length: number) => ({
    "x-request-id": REQUEST_ID,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(length),
  });
  const docsPage = {
    "x-request-id": REQUEST_ID,
    "content-security-policy":
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self' https://api.example; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "cache-control": "no-cache",
    "content-type": "text/html; charset=utf-8",
    "content-length": "442",
  };
  const linkPage = {
    "x-request-id": REQUEST_ID,
    "cache-control": "no-store",
    "x-robots-tag": "noindex, nofollow",
    "content-security-policy":
      "default-src 'none'; style-src 'sha256-hJSgfIp8mw5NF4bhPtkdMHavga91wyw6FiOuGOUZaE4='; script-src 'sha256-ZQL2/ZSizmy2a37Ly36ZutZbHw90w4AV3ePsw2xw0nI='; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "content-type": "text/html; charset=utf-8",
    "content-length": "4180",
  };
  const preflight = {
    "access-control-allow-methods": "GET,HEAD,POST",
    "access-control-allow-headers": ALLOW_HEADERS,
    "content-length": "0",
  };

  describe("CORS_ORIGINS=*", () => {
    const cors = { "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSE };

    it("a JSON route, with and without an Origin", async () => {
      for (const headers of [asked, fromWallet]) {
        const response = await open.inject({ method: "POST", url: "/things", payload: { name: "a" }, headers });
        expect(response.statusCode).toBe(200);
        expect(headersOf(response)).toEqual({ ...common, ...cors, ...json(22) });
      }
    });

    it("a preflight", async () => {
      const response = await open.inject({ method: "OPTIONS", url: "/things", headers: preflightOf(fromWallet) });
      expect(response.statusCode).toBe(204);
      expect(headersOf(response)).toEqual({ ...common, ...cors, ...preflight });
    });

    it("HTML pages: the docs page and a link page, each with its CSP", async () => {
      const docs = await open.inject({ method: "GET", url: "/docs", headers: fromWallet });
      expect(headersOf(docs)).toEqual({ ...common, ...cors, ...docsPage });
      const page = await open.inject({ method: "GET", url: "/page", headers: fromWallet });
      expect(page.statusCode).toBe(200);
      expect(headersOf(page)).toEqual({ ...common, ...cors, ...linkPage });
    });

    it("error answers: 404, 400, 500 and an AppError with its own header", async () => {
      const cases = [
        [{ method: "GET", url: "/nowhere" }, 404, 49],
        [{ method: "POST", url: "/things", payload: { name: "" } }, 400, 120],
        [{ method: "GET", url: "/boom" }, 500, 58],
      ] as const;
      for (const [request, status, length] of cases) {
        const response = await open.inject({ ...request, headers: fromWallet });
        expect(response.statusCode).toBe(status);
        expect(headersOf(response)).toEqual({ ...common, ...cors, ...json(length) });
      }
      const refused = await open.inject({ method: "GET", url: "/refused", headers: fromWallet });
      expect(refused.statusCode).toBe(409);
      expect(headersOf(refused)).toEqual({ ...common, ...cors, ...json(46), "retry-after": "5" });
    });
  });

  describe("CORS_ORIGINS as an allow-list", () => {
    const allowed = {
      vary: "Origin",
      "access-control-allow-origin": "https://wallet.example",
      "access-control-expose-headers": EXPOSE,
    };
    /** An Origin not on the list, or none: no Access-Control-Allow-Origin, the rest as for an allowed one. */
    const notAllowed = { vary: "Origin", "access-control-expose-headers": EXPOSE };

    it("a JSON route: a listed origin, another origin, no origin", async () => {
      const cases = [
        [fromWallet, allowed],
        [fromElsewhere, notAllowed],
        [asked, notAllowed],
      ] as const;
      for (const [headers, cors] of cases) {
        const response = await listed.inject({ method: "POST", url: "/things", payload: { name: "a" }, headers });
        expect(response.statusCode).toBe(200);
        expect(headersOf(response)).toEqual({ ...common, ...cors, ...json(22) });
      }
    });

    it("a preflight from a listed origin and from another", async () => {
      const fine = await listed.inject({ method: "OPTIONS", url: "/things", headers: preflightOf(fromWallet) });
      expect(fine.statusCode).toBe(204);
      expect(headersOf(fine)).toEqual({ ...common, ...allowed, ...preflight });
      const other = await listed.inject({ method: "OPTIONS", url: "/things", headers: preflightOf(fromElsewhere) });
      expect(other.statusCode).toBe(204);
      expect(headersOf(other)).toEqual({ ...common, ...notAllowed, ...preflight });
    });

    it("HTML pages and error answers", async () => {
      const docs = await listed.inject({ method: "GET", url: "/docs", headers: fromWallet });
      expect(headersOf(docs)).toEqual({ ...common, ...allowed, ...docsPage });
      const page = await listed.inject({ method: "GET", url: "/page", headers: fromWallet });
      expect(headersOf(page)).toEqual({ ...common, ...allowed, ...linkPage });
      const missing = await listed.inject({ method: "GET", url: "/nowhere", headers: fromWallet });
      expect(headersOf(missing)).toEqual({ ...common, ...allowed, ...json(49) });
      const failed = await listed.inject({ method: "GET", url: "/boom", headers: fromElsewhere });
      expect(failed.statusCode).toBe(500);
      expect(headersOf(failed)).toEqual({ ...common, ...notAllowed, ...json(58) });
    });

    it("GET /health (its own log level) carries the same set", async () => {
      const response = await listed.inject({ method: "GET", url: "/health", headers: asked });
      expect(headersOf(response)).toEqual({ ...common, ...notAllowed, ...json(57) });
    });
  });
});
