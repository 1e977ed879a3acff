import { randomBytes } from "node:crypto";
import { generateEd25519Jwk } from "@attesto/protocol";
import fc from "fast-check";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compactJws,
  deepNesting,
  fcOptions,
  forgedJwt,
  headerValue,
  hostileJson,
  hostileText,
  INJECTIONS,
  malformedJson,
  notOfType,
} from "./support/arbitraries.js";
import { applyTenant, logIn, PASSWORD, type Tenant, uniqueTenantName } from "./support/flows.js";
import { expectJsonBodiesRefused, expectNoDatabaseChange } from "./support/fuzz.js";
import { encodeHostile, expectNoServerError, expectRefused, http, postJson, rawHttp, show } from "./support/http.js";
import { oversizedChunkedPost, oversizedPost } from "./support/limits.js";
import { startTestPlatform, type TestPlatform } from "./support/platform.js";

/**
 * Hostile input at the trust registry (apply, login, organization DIDs, DID configuration), the
 * schema registry (catalogue query, type documents, legacy redirect), the ledger resolver, and
 * HTTP-level malformation (request line, headers, framing) that reaches the shared runtime.
 */
const PORT_OFFSET = 22_030;

const urlText = hostileText.map((text) => text.slice(0, 1_000));

/** A different client address per request, so POST /v1/apply's per-IP limit (100/min) is not what answers. */
const randomIp = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]! | 1}`;

describe("hostile input: trust registry, schema registry, ledger", () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  let loginToken: string;
  let port: { trust: number; schema: number; ledger: number };

  beforeAll(async () => {
    platform = await startTestPlatform({
      portOffset: PORT_OFFSET,
      label: "hostile_rg",
      // Behind an ingress (README): the per-IP apply limit keys on X-Forwarded-For.
      env: { TRUST_REGISTRY_TRUST_PROXY: "true" },
    });
    tenant = await applyTenant(platform.url, { headers: { "x-forwarded-for": randomIp() } });
    loginToken = await logIn(platform.url, tenant);
    port = {
      trust: Number(new URL(platform.url.trust).port),
      schema: Number(new URL(platform.url.schema).port),
      ledger: Number(new URL(platform.url.ledger).port),
    };
  });
  afterAll(async () => {
    await platform?.close();
  });

  describe("POST /v1/apply", () => {
    const valid = () => ({ name: "Hostile Org", password: PASSWORD, tenant: uniqueTenantName("h") });

    it("invalid registrations are 400 (or 409/413/415) and create no tenant", async () => {
      const mutate = <T>(arbitrary: fc.Arbitrary<T>, set: (body: Record<string, unknown>, value: T) => void) =>
        arbitrary.map((value) => {
          const body: Record<string, unknown> = valid();
          set(body, value);
          return JSON.stringify(body);
        });
      const bodies = fc.oneof(
        malformedJson,
        deepNesting,
        notOfType("object").map((value) => JSON.stringify(value) ?? "null"),
        mutate(fc.oneof(notOfType("string"), fc.constant(""), fc.constant("n".repeat(256))), (body, value) => {
          body.name = value;
        }),
        mutate(
          fc.oneof(
            notOfType("string"),
            fc.constantFrom("short1A", "alllowercase1", "ALLUPPERCASE1", "NoDigitsHere", `Aa1${"x".repeat(126)}`),
          ),
          (body, value) => {
            body.password = value;
          },
        ),
        mutate(
          fc.oneof(
            notOfType("string"),
            hostileText.filter((text) => !/^[A-Za-z0-9_-]{1,100}$/.test(text)),
            fc.constantFrom("u-x", "svc-x", "admin-x", "api-x", "www-x", "", "t".repeat(101), "a/b", "a b", "İ"),
          ),
          (body, value) => {
            body.tenant = value;
          },
        ),
        mutate(
          fc.oneof(
            notOfType("string"),
            hostileText.filter((text) => !text.includes("@")),
          ),
          (body, value) => {
            if (value !== null && value !== "") body.email = value;
            else body.email = 42;
          },
        ),
        mutate(notOfType("boolean"), (body, value) => {
          body.is_issuer = value ?? "yes";
        }),
        mutate(notOfType("boolean"), (body, value) => {
          body.is_verifier = value ?? 0;
        }),
        fc.constant('{"__proto__": {"status": "APPROVED"}, "name": "x", "password": "Aa345678", "tenant": "proto-x"}'),
      );
      await expectNoDatabaseChange(platform, async () => {
        // The same tenant again, in another case: 409 with the spec's message.
        const again = await postJson(
          `${platform.url.trust}/v1/apply`,
          { name: "x", password: PASSWORD, tenant: tenant.tenant.toUpperCase() },
          { "x-forwarded-for": randomIp() },
        );
        expectRefused(again, "api", { statuses: [409] });
        expect((again.json as { message: string }).message).toBe(`Tenant '${tenant.tenant}' already exists`);
        await expectJsonBodiesRefused(`${platform.url.trust}/v1/apply`, {
          bodies,
          validBody: valid,
          headers: () => ({ "x-forwarded-for": randomIp() }),
        });
      });
    });

    it("hostile organization names and e-mail local parts are stored or refused, never a 5xx", async () => {
      await fc.assert(
        fc.asyncProperty(hostileText, fc.constantFrom("", "'--", "a%_b", "x+y"), async (name, local) => {
          const tenantName = uniqueTenantName("n");
          const result = await postJson(
            `${platform.url.trust}/v1/apply`,
            {
              name: name.slice(0, 255) || "x",
              password: PASSWORD,
              tenant: tenantName,
              email: `${local || "e"}.${tenantName}@example.test`,
            },
            { "x-forwarded-for": randomIp() },
          );
          expectNoServerError(result, "api", show(name));
        }),
        fcOptions(),
      );
    });

    it("the per-IP limit answers 429 with Retry-After and the API shape", async () => {
      const ip = randomIp();
      let last = await postJson(`${platform.url.trust}/v1/apply`, "{}", { "x-forwarded-for": ip });
      for (let i = 0; i < 100 && last.status !== 429; i++) {
        last = await postJson(`${platform.url.trust}/v1/apply`, "{}", { "x-forwarded-for": ip });
      }
      expectRefused(last, "api", { statuses: [429] });
      expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    });
  });

  it("POST /v1/auth/login refuses hostile credentials with 400/401/429 and never fails", async () => {
    const bodies = fc.oneof(
      malformedJson,
      hostileJson.map((value) => JSON.stringify(value) ?? "null"),
      fc.record({ uuid: fc.oneof(hostileText, fc.uuid()), password: hostileText }).map((b) => JSON.stringify(b)),
      fc.record({ uuid: fc.constant(tenant.uuid.toUpperCase()), password: hostileText }).map((b) => JSON.stringify(b)),
    );
    await expectNoDatabaseChange(platform, async () => {
      await fc.assert(
        fc.asyncProperty(bodies, async (body) => {
          const result = await postJson(`${platform.url.trust}/v1/auth/login`, body);
          expectRefused(result, "api", { statuses: [400, 401, 429], context: show(body) });
        }),
        fcOptions(),
      );
    });
  });

  describe("organization DIDs (login token)", () => {
    it("forged, alg:none, expired and other-secret login tokens are 401 invalid_token", async () => {
      const [header, payload, signature] = loginToken.split(".") as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
      const tokens = fc.oneof(
        forgedJwt,
        headerValue,
        fc.constantFrom(
          compactJws({ alg: "none", typ: "JWT" }, claims),
          compactJws({ ...JSON.parse(Buffer.from(header, "base64url").toString()), alg: "none" }, claims),
          `${header}.${Buffer.from(JSON.stringify({ ...claims, tenant: "someone-else" })).toString("base64url")}.${signature}`,
          `${header}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 9999 })).toString("base64url")}.${signature}`,
          `${loginToken}x`,
          `${loginToken}.`,
          loginToken.toUpperCase(),
        ),
        fc.constant("other-secret"),
      );
      const otherSecret = await new SignJWT(claims)
        .setProtectedHeader(JSON.parse(Buffer.from(header, "base64url").toString()))
        .sign(new TextEncoder().encode(randomBytes(32).toString("hex")))
        .catch(() => "x.y.z");
      await expectNoDatabaseChange(platform, async () => {
        await fc.assert(
          fc.asyncProperty(tokens, fc.constantFrom("/v1/did", "/v1/did/import"), async (token, path) => {
            const sent = token === "other-secret" ? otherSecret : token;
            const result = await postJson(`${platform.url.trust}${path}`, "{}", { authorization: `Bearer ${sent}` });
            expectRefused(result, "api", { statuses: [401], context: show({ path, sent }) });
          }),
          fcOptions(),
        );
      });
    });

    it("POST /v1/did/import refuses hostile DIDs and keys with 400 (409 for a DID held elsewhere)", async () => {
      const seed = generateEd25519Jwk().d;
      const bodies = fc.oneof(
        malformedJson,
        deepNesting,
        notOfType("object").map((value) => JSON.stringify(value) ?? "null"),
        fc
          .record({ did: fc.oneof(hostileText, notOfType("string")), private_key: fc.constant(seed) })
          .map((b) => JSON.stringify(b)),
        fc
          .record({ did: hostileText.map((t) => `did:ledger:${t}`), private_key: fc.constant(seed) })
          .map((b) => JSON.stringify(b)),
        fc
          .record({
            did: fc.constant("did:ledger:0000000000000000000000"),
            private_key: fc.oneof(hostileText, notOfType("string")),
          })
          .map((b) => JSON.stringify(b)),
      );
      await expectNoDatabaseChange(platform, async () => {
        await fc.assert(
          fc.asyncProperty(bodies, async (body) => {
            const result = await postJson(`${platform.url.trust}/v1/did/import`, body, {
              authorization: `Bearer ${loginToken}`,
            });
            expectRefused(result, "api", { statuses: [400, 413], context: show(body) });
          }),
          fcOptions(),
        );
        const result = await postJson(
          `${platform.url.trust}/v1/did`,
          { method: "KEY" },
          { authorization: `Bearer ${loginToken}` },
        );
        expectRefused(result, "api", { statuses: [400] });
      });
    });

    it("bodies beyond BODY_LIMIT_BYTES are 413", async () => {
      for (const path of ["/v1/apply", "/v1/auth/login", "/v1/did/import"]) {
        for (const send of [oversizedPost, oversizedChunkedPost]) {
          const result = await send(port.trust, path, "application/json", {
            Authorization: `Bearer ${loginToken}`,
            "X-Forwarded-For": randomIp(),
          });
          expectRefused(result, "api", { statuses: [413], context: `${path} ${send.name}` });
        }
      }
    });
  });

  it("GET /.well-known/did-configuration.json/:tenant of hostile tenants is 404 (or 400/414)", async () => {
    await fc.assert(
      fc.asyncProperty(urlText, async (name) => {
        const result = await http(
          `${platform.url.trust}/.well-known/did-configuration.json/${encodeHostile(name) || "x"}`,
        );
        if (result.status === 200) expect(name.toLowerCase(), show(name)).toBe(tenant.tenant);
        else expectRefused(result, "api", { statuses: [400, 404, 414], context: show(name) });
      }),
      fcOptions(),
    );
  });

  describe("schema registry", () => {
    it("GET /schemas: hostile query parameters are 200 or a 400 naming the parameter", async () => {
      const parameter = fc.constantFrom("status", "type", "name", "sort_by", "offset", "limit", "__proto__", "x");
      const query = fc.array(fc.tuple(parameter, urlText), { maxLength: 5 });
      await fc.assert(
        fc.asyncProperty(query, async (pairs) => {
          const search = pairs.map(([key, value]) => `${key}=${encodeHostile(value)}`).join("&");
          const result = await http(`${platform.url.schema}/schemas?${search}`);
          expectNoServerError(result, "api", show(pairs));
          if (result.status === 200) {
            const body = result.json as { data: unknown[]; meta: { limit: number } };
            expect(body.data.length).toBeLessThanOrEqual(body.meta.limit);
          } else {
            expect(result.status, show(pairs)).toBe(400);
          }
        }),
        fcOptions(80),
      );
    });

    it("LIKE wildcards and SQL in type/name match literally, not everything", async () => {
      const all = (await http(`${platform.url.schema}/schemas?limit=100`)).json as { meta: { total: number } };
      expect(all.meta.total).toBeGreaterThan(0);
      // "." is left out: mdoc doctypes (org.iso.18013.5.1.mDL) hold a literal dot, so it rightly matches them.
      for (const text of ["%", "_", "%%", "%_%", "\\", "\\%", "' OR '1'='1", "' OR 1=1 --", "*"]) {
        for (const parameter of ["type", "name"]) {
          const result = await http(`${platform.url.schema}/schemas?${parameter}=${encodeURIComponent(text)}`);
          expect(result.status, `${parameter}=${text}`).toBe(200);
          expect((result.json as { meta: { total: number } }).meta.total, `${parameter}=${text}`).toBe(0);
        }
      }
    });

    it("GET /schemas/:type/:version and the legacy redirect never fail on hostile segments", async () => {
      await fc.assert(
        fc.asyncProperty(urlText, urlText, fc.boolean(), async (type, version, legacy) => {
          const path = `${legacy ? "/v1" : ""}/schemas/${encodeHostile(type) || "x"}/${encodeHostile(version) || "v"}`;
          const result = await http(`${platform.url.schema}${path}`);
          if (legacy && result.status === 302) {
            const location = result.headers.get("location") ?? "";
            expect(location, show({ type, version })).toMatch(/^\/schemas\/[^/\r\n]+\/[^/\r\n]+$/);
          } else {
            expectRefused(result, "api", { statuses: [400, 404, 414], context: show({ type, version, legacy }) });
          }
        }),
        // Dot segments, which the client folds away ("/v1/schemas/x/." is sent as "/v1/schemas/x/"), always run.
        {
          ...fcOptions(),
          examples: [
            ["x", ".", true],
            ["x", "..", true],
            [".", ".", true],
            ["x", ".", false],
          ],
        },
      );
    });
  });

  it("ledger resolver: hostile DIDs and record ids are 400/404/414, never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          urlText,
          urlText.map((t) => `did:ledger:${t}`),
          fc.constantFrom("did:ledger:", "did:ledger:%00", "did:key:z6Mk"),
        ),
        fc.constantFrom("/1.0/identifiers/", "/records/"),
        async (id, path) => {
          const encoded = id.includes("%00") ? id : encodeHostile(id);
          const result = await http(`${platform.url.ledger}${path}${encoded || "x"}`);
          expectRefused(result, "api", { statuses: [400, 404, 414], context: show({ id, path }) });
        },
      ),
      fcOptions(),
    );
  });

  describe("HTTP-level malformation (shared runtime)", () => {
    const send = (target: number, lines: string[], body = "") =>
      rawHttp(target, Buffer.from(`${lines.join("\r\n")}\r\n\r\n${body}`, "latin1"));

    it("CRLF and NUL in header values, bad framing and bad request lines are 400 with the API shape", async () => {
      const cases: Array<[string, string[], string?]> = [
        ["bare LF in a header", ["GET /schemas HTTP/1.1", "Host: x", "X-Api-Key: a\nInjected: b"]],
        ["NUL in a header", ["GET /schemas HTTP/1.1", "Host: x", "X-Api-Key: a\u0000b"]],
        ["space before colon", ["GET /schemas HTTP/1.1", "Host : x"]],
        ["obs-fold", ["GET /schemas HTTP/1.1", "Host: x", "X-A: a", " folded"]],
        [
          "two content lengths",
          [
            "POST /v1/apply HTTP/1.1",
            "Host: x",
            "Content-Type: application/json",
            "Content-Length: 2",
            "Content-Length: 3",
          ],
          "{}",
        ],
        [
          "CL and TE (smuggling)",
          [
            "POST /v1/apply HTTP/1.1",
            "Host: x",
            "Content-Type: application/json",
            "Content-Length: 4",
            "Transfer-Encoding: chunked",
          ],
          "0\r\n\r\n",
        ],
        [
          "bad chunk size",
          ["POST /v1/apply HTTP/1.1", "Host: x", "Content-Type: application/json", "Transfer-Encoding: chunked"],
          "zz\r\n{}\r\n0\r\n\r\n",
        ],
        [
          "negative length",
          ["POST /v1/apply HTTP/1.1", "Host: x", "Content-Type: application/json", "Content-Length: -1"],
          "{}",
        ],
        ["bad method", ["G\u0000ET /schemas HTTP/1.1", "Host: x"]],
        ["bad version", ["GET /schemas HTTP/9.9", "Host: x"]],
        ["space in path", ["GET /sche mas HTTP/1.1", "Host: x"]],
      ];
      for (const [what, lines, body] of cases) {
        const result = await send(port.trust, lines, body);
        expect(result.status, `${what}: ${result.status} ${result.body}`).toBeGreaterThanOrEqual(400);
        expect(result.status, `${what}: ${result.status} ${result.body}`).toBeLessThan(500);
        expectRefused(result, "api", { context: what });
      }
    });

    it("over-long URLs and header blocks are 414/431 with the API shape", async () => {
      const longUrl = await send(port.schema, [`GET /schemas?type=${"a".repeat(20_000)} HTTP/1.1`, "Host: x"]);
      expectRefused(longUrl, "api", { statuses: [414, 431], context: "20 kB query" });
      const bigJwt = `${"A".repeat(9000)}.${"B".repeat(9000)}.C`;
      const bigHeader = await send(port.trust, [
        "POST /v1/did HTTP/1.1",
        "Host: x",
        `Authorization: Bearer ${bigJwt}`,
        "Content-Length: 0",
      ]);
      expectRefused(bigHeader, "api", { statuses: [431], context: "18 kB Authorization" });
    });

    it("percent-encoded invalid UTF-8, NUL and traversal in paths are refused, never a 5xx", async () => {
      const paths = [
        "/schemas/%ED%A0%80/v1",
        "/schemas/%C0%AF/v1",
        "/schemas/%FF%FE/v1",
        "/schemas/%00/v1",
        "/schemas/..%2f..%2fetc%2fpasswd/v1",
        "/schemas/%2e%2e/%2e%2e",
        "/schemas/%/v1",
        "/schemas?type=%ED%A0%80",
        "/schemas?type=%00",
        "/schemas?type=%",
      ];
      for (const path of paths) {
        const result = await http(`${platform.url.schema}${path}`);
        expectNoServerError(result, "api", path);
      }
      for (const text of INJECTIONS.slice(0, 30)) {
        const result = await http(
          `${platform.url.trust}/.well-known/did-configuration.json/${encodeHostile(text) || "x"}`,
        );
        expectNoServerError(result, "api", text);
      }
    });
  });
});
