import { createDemoClientAttestationHeaders } from "@attesto/auth-server";
import { createPkce } from "@attesto/protocol";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compactJws,
  fcOptions,
  forgedJwt,
  headerValue,
  hostileJson,
  hostileText,
  malformedJson,
  wrongContentType,
} from "./support/arbitraries.js";
import {
  applyTenant,
  createOffer,
  dpopProof,
  fetchOffer,
  getToken,
  PRE_AUTHORIZED_GRANT,
  p256Key,
  redeemCode,
  type Tenant,
} from "./support/flows.js";
import { encodeForm, expectNoDatabaseChange, type FormPairs, hostileFormBody, withField } from "./support/fuzz.js";
import { encodeHostile, expectNoServerError, expectRefused, http, postForm, show } from "./support/http.js";
import { oversizedChunkedPost, oversizedPost } from "./support/limits.js";
import { startTestPlatform, type TestPlatform } from "./support/platform.js";

/**
 * Hostile input at the authorization server (the auth-server README): RFC 8414 metadata, POST /v1/token and
 * POST /v1/par. Every refusal is 4xx with `{error, error_description}`, nothing is ever written
 * for a refused request, and no request hangs.
 */
const PORT_OFFSET = 22_000;

const TOKEN_FIELDS = [
  "grant_type",
  "pre-authorized_code",
  "tx_code",
  "user_pin",
  "code",
  "code_verifier",
  "redirect_uri",
  "client_id",
];
const PAR_FIELDS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "code_challenge",
  "code_challenge_method",
  "scope",
  "issuer_state",
  "authorization_details",
  "state",
  "request_uri",
  "request",
  "dpop_jkt",
];

describe("hostile input: authorization server", () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  let tokenUrl: string;
  let parUrl: string;
  let authPort: number;

  beforeAll(async () => {
    platform = await startTestPlatform({ portOffset: PORT_OFFSET, label: "hostile_as" });
    tenant = await applyTenant(platform.url);
    tokenUrl = `${platform.url.auth}/v1/token`;
    parUrl = `${platform.url.auth}/v1/par`;
    authPort = Number(new URL(platform.url.auth).port);
  });
  afterAll(async () => {
    await platform?.close();
  });

  it("GET /.well-known/oauth-authorization-server is 200 whatever the query and headers", async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, headerValue, async (query, header) => {
        const result = await http(
          `${platform.url.auth}/.well-known/oauth-authorization-server?${encodeHostile(query.slice(0, 200))}=${encodeHostile(query.slice(0, 200))}`,
          { headers: { authorization: header, dpop: header, "x-api-key": header } },
        );
        expect(result.status, show(query)).toBe(200);
        expect((result.json as { token_endpoint: string }).token_endpoint).toBe(tokenUrl);
      }),
      fcOptions(30),
    );
  });

  it("POST /v1/token refuses hostile forms with an OAuth error and writes nothing", async () => {
    await expectNoDatabaseChange(platform, async () => {
      await fc.assert(
        fc.asyncProperty(
          hostileFormBody(TOKEN_FIELDS, [
            fc.constantFrom(PRE_AUTHORIZED_GRANT, "authorization_code", "client_credentials", "password"),
          ]),
          async (body) => {
            const result = await http(tokenUrl, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body,
            });
            expectRefused(result, "oauth", { context: show(body) });
          },
        ),
        fcOptions(),
      );
    });
  });

  it("POST /v1/token with a pre-authorized code that is hostile text is invalid_grant or invalid_request", async () => {
    await expectNoDatabaseChange(platform, async () => {
      await fc.assert(
        fc.asyncProperty(hostileText, fc.option(hostileText), async (code, txCode) => {
          const pairs: FormPairs = [
            ["grant_type", PRE_AUTHORIZED_GRANT],
            ["pre-authorized_code", code],
          ];
          if (txCode !== null) pairs.push(["tx_code", txCode]);
          const result = await http(tokenUrl, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: encodeForm(pairs),
          });
          expectRefused(result, "oauth", { statuses: [400], context: show({ code, txCode }) });
          expect(["invalid_grant", "invalid_request"], show(result.json)).toContain(
            (result.json as { error: string }).error,
          );
        }),
        fcOptions(),
      );
    });
  });

  it("POST /v1/token refuses JSON, malformed and wrongly typed bodies with an OAuth error", async () => {
    const bodies = fc.oneof(
      fc.record({
        contentType: fc.constant("application/json"),
        body: hostileJson.map((value) => JSON.stringify(value) ?? "null"),
      }),
      fc.record({ contentType: fc.constant("application/json"), body: malformedJson }),
      fc.record({
        contentType: wrongContentType,
        body: fc.constant(`grant_type=${encodeURIComponent(PRE_AUTHORIZED_GRANT)}&pre-authorized_code=x`),
      }),
    );
    await expectNoDatabaseChange(platform, async () => {
      await fc.assert(
        fc.asyncProperty(bodies, async ({ contentType, body }) => {
          const result = await http(tokenUrl, { method: "POST", headers: { "content-type": contentType }, body });
          expectRefused(result, "oauth", { context: `${contentType} ${show(body)}` });
        }),
        fcOptions(),
      );
    });
  });

  it("POST /v1/token: forged, alg:none and malformed DPoP proofs are refused before the code is spent", async () => {
    const offer = await createOffer(platform.url, tenant.apiKey);
    const { code } = await fetchOffer(offer);
    const key = p256Key();
    const valid = { typ: "dpop+jwt", alg: "ES256", jwk: key.publicJwk };
    const now = () => Math.floor(Date.now() / 1000);
    const proofs = fc.oneof(
      forgedJwt,
      headerValue,
      // A real signature over claims that are wrong one at a time.
      fc
        .constantFrom<Record<string, unknown>>(
          { htm: "GET" },
          { htu: `${platform.url.auth}/v1/par` },
          { htu: "http://evil.example/v1/token" },
          { iat: 0 },
          { iat: "now" },
          { iat: 1e20 },
          { jti: 42 },
          { jti: "" },
          { htm: null },
          { nonce: "not-a-server-nonce" },
        )
        .map((override) => ({ override })),
      // Private key material or a symmetric key in the header.
      fc.constantFrom(
        compactJws(
          { ...valid, jwk: { ...key.privateJwk } },
          { jti: "x", htm: "POST", htu: tokenUrl, iat: now() },
          "AAAA",
        ),
        compactJws(
          { ...valid, alg: "HS256", jwk: { kty: "oct", k: "AAAA" } },
          { jti: "x", htm: "POST", htu: tokenUrl, iat: now() },
          "AAAA",
        ),
        compactJws({ ...valid, alg: "none" }, { jti: "x", htm: "POST", htu: tokenUrl, iat: now() }),
        compactJws({ ...valid, typ: "JWT" }, { jti: "x", htm: "POST", htu: tokenUrl, iat: now() }, "AAAA"),
      ),
    );
    const signedWith = async (override: Record<string, unknown>) => {
      const { SignJWT } = await import("jose");
      return new SignJWT({ jti: crypto.randomUUID(), htm: "POST", htu: tokenUrl, iat: now(), ...override })
        .setProtectedHeader(valid as never)
        .sign(key.privateJwk);
    };
    await fc.assert(
      fc.asyncProperty(proofs, async (proof) => {
        const dpop = typeof proof === "string" ? proof : await signedWith(proof.override);
        const result = await postForm(
          tokenUrl,
          { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": code },
          { dpop },
        );
        expectRefused(result, "oauth", { statuses: [400], context: show(dpop) });
        expect(["invalid_dpop_proof", "use_dpop_nonce"], show(result.json)).toContain(
          (result.json as { error: string }).error,
        );
      }),
      fcOptions(),
    );
    // Two DPoP headers at once.
    const twice = await http(tokenUrl, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        dpop: `${await dpopProof({ key, htu: tokenUrl })}, ${await dpopProof({ key, htu: tokenUrl })}`,
      },
      body: encodeForm([
        ["grant_type", PRE_AUTHORIZED_GRANT],
        ["pre-authorized_code", code],
      ]),
    });
    expectRefused(twice, "oauth", { statuses: [400], code: "invalid_dpop_proof" });
    // None of the refused proofs spent the code.
    const token = await getToken(platform.url, code, key);
    expect(token.tokenType).toBe("DPoP");
  });

  it("POST /v1/token ignores hostile client-attestation headers on the pre-authorized grant but never fails on them", async () => {
    await expectNoDatabaseChange(platform, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(forgedJwt, headerValue),
          fc.oneof(forgedJwt, headerValue),
          async (attestation, pop) => {
            const result = await postForm(
              tokenUrl,
              { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": "unknown-code" },
              { "oauth-client-attestation": attestation, "oauth-client-attestation-pop": pop },
            );
            expectRefused(result, "oauth", { context: show({ attestation, pop }) });
          },
        ),
        fcOptions(30),
      );
    });
  });

  it("POST /v1/par without (or with forged) client attestation is refused and stores nothing", async () => {
    await expectNoDatabaseChange(platform, async () => {
      await fc.assert(
        fc.asyncProperty(
          hostileFormBody(PAR_FIELDS, [fc.constantFrom("code", "S256", "https://wallet.example/cb")]),
          fc.option(
            fc.record({ attestation: fc.oneof(forgedJwt, headerValue), pop: fc.oneof(forgedJwt, headerValue) }),
          ),
          async (body, attestation) => {
            const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
            if (attestation) {
              headers["oauth-client-attestation"] = attestation.attestation;
              headers["oauth-client-attestation-pop"] = attestation.pop;
            }
            const result = await http(parUrl, { method: "POST", headers, body });
            expectRefused(result, "oauth", { statuses: [400, 401], context: show({ body, attestation }) });
          },
        ),
        fcOptions(),
      );
    });
  });

  it("POST /v1/par with a genuine attestation never fails on hostile parameter values", async () => {
    const wallet = { clientId: "hostile-wallet", key: p256Key() };
    const pkce = createPkce();
    const base: FormPairs = [
      ["response_type", "code"],
      ["client_id", wallet.clientId],
      ["redirect_uri", "https://wallet.example/cb"],
      ["code_challenge", pkce.codeChallenge],
      ["code_challenge_method", "S256"],
    ];
    const mutation = fc.oneof(
      fc.record({ field: fc.constantFrom(...PAR_FIELDS), value: hostileText }),
      fc.record({
        field: fc.constant("authorization_details"),
        value: hostileJson.map((v) => JSON.stringify(v) ?? ""),
      }),
      fc.record({ field: fc.constant("state"), value: fc.constantFrom("s".repeat(4096), "s".repeat(4097), "\u0000") }),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async ({ field, value }) => {
        const headers = await createDemoClientAttestationHeaders({
          clientId: wallet.clientId,
          instancePrivateJwk: wallet.key.privateJwk,
          audience: platform.url.auth,
        });
        const result = await http(parUrl, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
          body: encodeForm(withField(base, field, value)),
        });
        expectNoServerError(result, "oauth", show({ field, value }));
        if (result.status === 201) {
          expect((result.json as { request_uri: string }).request_uri).toMatch(/^urn:ietf:params:oauth:request-uri:/);
        }
      }),
      fcOptions(),
    );
  });

  it("bodies beyond BODY_LIMIT_BYTES are 413 with the OAuth shape, announced or streamed", async () => {
    for (const path of ["/v1/token", "/v1/par"]) {
      for (const send of [oversizedPost, oversizedChunkedPost]) {
        const result = await send(authPort, path, "application/x-www-form-urlencoded");
        expectRefused(result, "oauth", { statuses: [413], context: `${path} ${send.name}` });
      }
    }
  });

  it("unknown routes, methods and encoded path tricks are 404/405 with the API shape", async () => {
    const paths = fc.oneof(
      fc.constantFrom(
        "/v1/token/",
        "/v1/token/..",
        "/v1/%2e%2e/v1/token",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/v1/token%00",
        "/v1/%ED%A0%80",
        "/v1/%C0%AF",
        "/v1/%",
        "/.well-known/../v1/token",
        `/${"a".repeat(5000)}`,
      ),
      hostileText.map((text) => `/v1/${encodeHostile(text.slice(0, 1000))}`),
    );
    await fc.assert(
      fc.asyncProperty(paths, fc.constantFrom("GET", "PUT", "DELETE", "PATCH"), async (path, method) => {
        const result = await http(`${platform.url.auth}${path}`, { method });
        expectRefused(result, "api", { context: `${method} ${show(path)}` });
      }),
      fcOptions(40),
    );
  });

  it("a pre-authorized code still redeems exactly once after all of the above", async () => {
    const offer = await createOffer(platform.url, tenant.apiKey, { signing: undefined });
    const { code } = await fetchOffer(offer);
    const key = p256Key();
    expect((await redeemCode(platform.url, code, { dpopKey: key })).status).toBe(200);
    const again = await redeemCode(platform.url, code, { dpopKey: key });
    expectRefused(again, "oauth", { statuses: [400], code: "invalid_grant" });
  });
});
