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
  malformedJson,
  notOfType,
  wrongContentType,
} from "./support/arbitraries.js";
import {
  applyTenant,
  BADGE_CLAIMS,
  BADGE_CONFIG,
  createOffer,
  didKeyIssuer,
  dpopProof,
  fetchNonce,
  fetchOffer,
  getToken,
  keyProof,
  p256Key,
  postCredential,
  type Tenant,
  type TokenResult,
} from "./support/flows.js";
import { expectJsonBodiesRefused, expectNoDatabaseChange } from "./support/fuzz.js";
import { encodeHostile, expectNoServerError, expectRefused, http, postJson, show } from "./support/http.js";
import { oversizedChunkedPost, oversizedPost } from "./support/limits.js";
import { startTestPlatform, type TestPlatform } from "./support/platform.js";

/**
 * Hostile input at the credential issuer (the credential-issuer README): offers (API key), offer documents, the
 * nonce endpoint, the credential endpoint (Bearer/DPoP, OAuth error shape) and the per-tenant
 * metadata and landing pages.
 */
const PORT_OFFSET = 22_010;

const urlText = hostileText.map((text) => text.slice(0, 1_000));

describe("hostile input: credential issuer", () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  let offersUrl: string;
  let credentialUrl: string;
  let issuerPort: number;
  let issuerId: string;

  const validOffer = () => ({
    credential: { config_id: BADGE_CONFIG, claims: { ...BADGE_CLAIMS } },
    flow: "pre-authorized",
  });

  /** A redeemed DID-path offer: a Bearer token that may ask for the badge. */
  const bearerToken = async (): Promise<TokenResult> => {
    const offer = await createOffer(platform.url, tenant.apiKey, { signing: didKeyIssuer() });
    const { code } = await fetchOffer(offer);
    return getToken(platform.url, code);
  };

  beforeAll(async () => {
    platform = await startTestPlatform({ portOffset: PORT_OFFSET, label: "hostile_ci" });
    tenant = await applyTenant(platform.url);
    offersUrl = `${platform.url.issuer}/v1/offers`;
    credentialUrl = `${platform.url.issuer}/credential`;
    issuerPort = Number(new URL(platform.url.issuer).port);
    issuerId = `${platform.url.issuer}/${tenant.tenant}`;
  });
  afterAll(async () => {
    await platform?.close();
  });

  describe("POST /v1/offers", () => {
    it("without a usable API key: 401 with the spec's message, whatever the body", async () => {
      await expectNoDatabaseChange(platform, async () => {
        await fc.assert(
          fc.asyncProperty(fc.option(headerValue), hostileJson, async (apiKey, body) => {
            const result = await postJson(
              offersUrl,
              JSON.stringify(body) ?? "null",
              apiKey === null ? {} : { "x-api-key": apiKey },
            );
            expectRefused(result, "api", { statuses: [401], context: show({ apiKey, body }) });
            expect(["API Key is required", "Invalid API Key"]).toContain((result.json as { message: string }).message);
          }),
          fcOptions(),
        );
      });
    });

    it("invalid bodies are 400/413/415 with the API shape and create nothing", async () => {
      const field = <T>(arbitrary: fc.Arbitrary<T>, set: (body: Record<string, unknown>, value: T) => void) =>
        arbitrary.map((value) => {
          const body: Record<string, unknown> = validOffer();
          set(body, value);
          return JSON.stringify(body);
        });
      const bodies = fc.oneof(
        malformedJson,
        deepNesting,
        notOfType("object").map((value) => JSON.stringify(value) ?? "null"),
        field(notOfType("object"), (body, value) => {
          body.credential = value;
        }),
        field(notOfType("string"), (body, value) => {
          (body.credential as Record<string, unknown>).config_id = value;
        }),
        field(notOfType("object"), (body, value) => {
          (body.credential as Record<string, unknown>).claims = value;
        }),
        field(hostileText, (body, value) => {
          (body.credential as Record<string, unknown>).config_id = `${value}\u0001`;
        }),
        field(hostileText, (body, value) => {
          body.flow = `${value}!`;
        }),
        // null is "omitted" (default TTL), so it is not among the invalid values.
        field(
          fc.oneof(
            notOfType("number").filter((v) => v !== null),
            fc.constantFrom(0, 59, 86_401, 1.5, -1, 1e308),
          ),
          (body, value) => {
            body.expires_in = value;
          },
        ),
        field(fc.constant(true), (body, value) => {
          body.require_transaction_code = value;
        }),
        field(hostileText, (body, value) => {
          body.issuer_did = value; // without issuer_private_key
        }),
        field(fc.record({ did: hostileText, key: hostileText }), (body, value) => {
          body.issuer_did = `did:ledger:${value.did}`;
          body.issuer_private_key = value.key;
        }),
        field(hostileText, (body, value) => {
          Object.assign(body, didKeyIssuer(), { issuer_private_key: value });
        }),
        field(hostileJson, (body, value) => {
          (body.credential as { claims: Record<string, unknown> }).claims.given_name = [value, 1];
        }),
        field(deepNesting, (body, value) => {
          (body.credential as Record<string, unknown>).claims = {
            given_name: JSON.parse(value.length < 2000 ? value : "1"),
          };
        }),
        fc.constant('{"__proto__": {"isAdmin": true}, "credential": {}, "flow": "pre-authorized"}'),
        fc.constant(
          '{"credential": {"config_id": "employee-badge", "claims": {"constructor": {"prototype": {"x": 1}}}}, "flow": "pre-authorized"}',
        ),
      );
      await expectNoDatabaseChange(platform, () =>
        expectJsonBodiesRefused(offersUrl, {
          bodies,
          validBody: validOffer,
          headers: () => ({ "x-api-key": tenant.apiKey }),
        }),
      );
    });

    it("hostile but well-typed claim values are stored verbatim or refused, never a 5xx", async () => {
      const claims = fc.record({
        given_name: hostileText,
        family_name: hostileText,
        employee_id: hostileText,
        employer: fc.record({ name: hostileText }),
        extra: hostileJson,
      });
      await fc.assert(
        fc.asyncProperty(claims, fc.boolean(), async (values, dropExtra) => {
          const body = validOffer();
          const claimsBody: Record<string, unknown> = { ...BADGE_CLAIMS, ...values };
          if (dropExtra) delete claimsBody.extra;
          body.credential.claims = claimsBody as typeof BADGE_CLAIMS;
          const result = await postJson(offersUrl, body, { "x-api-key": tenant.apiKey });
          expectNoServerError(result, "api", show(values));
          if (result.status === 201) {
            const document = await http((result.json as { credential_offer_uri: string }).credential_offer_uri);
            expect(document.status).toBe(200);
          }
        }),
        fcOptions(),
      );
    });

    it("bodies beyond BODY_LIMIT_BYTES are 413", async () => {
      for (const send of [oversizedPost, oversizedChunkedPost]) {
        const result = await send(issuerPort, "/v1/offers", "application/json", { "X-API-Key": tenant.apiKey });
        expectRefused(result, "api", { statuses: [413], context: send.name });
      }
    });
  });

  it("GET /v1/offers/:offerId with hostile ids is 400 or 404", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          urlText,
          fc.uuid().map((id) => id.toUpperCase()),
          fc.constant("..%2F..%2Fcredential"),
        ),
        async (id) => {
          const result = await http(`${platform.url.issuer}/v1/offers/${id.includes("%2F") ? id : encodeHostile(id)}`);
          expectRefused(result, "api", { statuses: [400, 404, 414], context: show(id) });
        },
      ),
      fcOptions(),
    );
  });

  it("POST /v1/nonce takes any body and never fails", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({
            type: fc.constant("application/json"),
            body: fc.oneof(
              malformedJson,
              hostileJson.map((v) => JSON.stringify(v) ?? ""),
            ),
          }),
          fc.record({ type: wrongContentType, body: hostileText }),
        ),
        async ({ type, body }) => {
          const result = await http(`${platform.url.issuer}/v1/nonce`, {
            method: "POST",
            headers: { "content-type": type },
            body,
          });
          expectNoServerError(result, "api", show({ type, body }));
          if (result.status === 200) expect(typeof (result.json as { c_nonce: string }).c_nonce).toBe("string");
        },
      ),
      fcOptions(40),
    );
  });

  describe("POST /credential", () => {
    it("forged, alg:none, oversized and malformed access tokens are 401 invalid_token", async () => {
      const schemes = fc.constantFrom("Bearer", "DPoP", "bearer", "Basic", "", "Bearer  ");
      await expectNoDatabaseChange(platform, async () => {
        await fc.assert(
          fc.asyncProperty(schemes, fc.oneof(forgedJwt, headerValue), async (scheme, token) => {
            const result = await http(credentialUrl, {
              method: "POST",
              headers: { authorization: `${scheme} ${token}`.trim(), "content-type": "application/json", dpop: token },
              body: JSON.stringify({ credential_configuration_id: BADGE_CONFIG, proofs: { jwt: ["x"] } }),
            });
            expectRefused(result, "oauth", {
              statuses: [401],
              code: "invalid_token",
              context: show({ scheme, token }),
            });
          }),
          fcOptions(),
        );
      });
    });

    it("a token re-signed with alg:none or another key, or with edited claims, is 401 invalid_token", async () => {
      const token = await bearerToken();
      const [header, payload] = token.accessToken.split(".") as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
      const forged = [
        compactJws({ ...JSON.parse(Buffer.from(header, "base64url").toString()), alg: "none" }, claims),
        compactJws({ alg: "none", typ: "at+jwt" }, { ...claims, aud: `${platform.url.issuer}/other` }),
        `${header}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 86_400 })).toString("base64url")}.${token.accessToken.split(".")[2]}`,
        await new SignJWT(claims)
          .setProtectedHeader({
            alg: "ES256",
            typ: "at+jwt",
            kid: JSON.parse(Buffer.from(header, "base64url").toString()).kid,
          })
          .sign(p256Key().privateJwk),
        await new SignJWT(claims)
          .setProtectedHeader({ alg: "HS256", typ: "at+jwt" })
          .sign(new TextEncoder().encode("x".repeat(32))),
      ];
      for (const accessToken of forged) {
        const result = await postCredential(
          platform.url,
          { ...token, accessToken },
          { credential_configuration_id: BADGE_CONFIG },
        );
        expectRefused(result, "oauth", { statuses: [401], code: "invalid_token", context: accessToken.slice(0, 80) });
      }
    });

    it("hostile request bodies with a valid token are 400 with the OAuth shape and issue nothing", async () => {
      const token = await bearerToken();
      const proofs = fc.oneof(
        forgedJwt,
        fc.constantFrom("", "a.b.c"),
        // Structurally fine proofs, wrong in one respect each.
        fc.constantFrom(
          "alg-none",
          "typ",
          "aud",
          "nonce",
          "private-jwk",
          "did-ledger-kid",
          "did-key-kid",
          "future",
          "old",
        ),
      );
      const makeProof = async (kind: string): Promise<string> => {
        const key = p256Key();
        const nonce = await fetchNonce(platform.url);
        const iat = Math.floor(Date.now() / 1000);
        const header = { typ: "openid4vci-proof+jwt", alg: "ES256", jwk: key.publicJwk };
        const payload = { aud: issuerId, iat, nonce };
        switch (kind) {
          case "alg-none":
            return compactJws({ ...header, alg: "none" }, payload);
          case "typ":
            return new SignJWT(payload).setProtectedHeader({ ...header, typ: "JWT" } as never).sign(key.privateJwk);
          case "aud":
            return new SignJWT({ ...payload, aud: `${platform.url.issuer}/someone-else` })
              .setProtectedHeader(header as never)
              .sign(key.privateJwk);
          case "nonce":
            return new SignJWT({ ...payload, nonce: `${nonce}x` })
              .setProtectedHeader(header as never)
              .sign(key.privateJwk);
          case "private-jwk":
            return new SignJWT(payload)
              .setProtectedHeader({ ...header, jwk: key.privateJwk } as never)
              .sign(key.privateJwk);
          case "did-ledger-kid":
            return new SignJWT(payload)
              .setProtectedHeader({ typ: header.typ, alg: "ES256", kid: "did:ledger:zzzz#key-1" })
              .sign(key.privateJwk);
          case "did-key-kid":
            return new SignJWT(payload)
              .setProtectedHeader({ typ: header.typ, alg: "ES256", kid: "did:key:z'; DROP TABLE x;--#0" })
              .sign(key.privateJwk);
          case "future":
            return keyProof({ key, nonce, audience: issuerId, iatOffsetSeconds: 3600 });
          default:
            return keyProof({ key, nonce, audience: issuerId, iatOffsetSeconds: -3600 });
        }
      };
      const bodies = fc.oneof(
        malformedJson,
        deepNesting,
        hostileJson.map((value) => JSON.stringify(value) ?? "null"),
        fc
          .record({ credential_configuration_id: hostileText, proofs: fc.constant({ jwt: ["x"] }) })
          .map((b) => JSON.stringify(b)),
        fc
          .record({ credential_configuration_id: fc.constant(BADGE_CONFIG), credential_identifier: hostileJson })
          .map((b) => JSON.stringify(b)),
        fc
          .record({ credential_configuration_id: fc.constant(BADGE_CONFIG), proofs: hostileJson })
          .map((b) => JSON.stringify(b)),
        fc
          .record({ credential_configuration_id: fc.constant(BADGE_CONFIG), proof: hostileJson })
          .map((b) => JSON.stringify(b)),
        fc
          .record({
            credential_configuration_id: fc.constant(BADGE_CONFIG),
            is_on_chain: notOfType("boolean"),
            proofs: fc.constant({ jwt: ["x"] }),
          })
          .map((b) => JSON.stringify(b)),
        fc.array(proofs, { minLength: 1, maxLength: 3 }).map((jwt) => ({ proofs: jwt })),
        fc
          .integer({ min: 11, max: 2000 })
          .map((n) =>
            JSON.stringify({ credential_configuration_id: BADGE_CONFIG, proofs: { jwt: Array(n).fill("a.b.c") } }),
          ),
      );
      await expectNoDatabaseChange(platform, async () => {
        await fc.assert(
          fc.asyncProperty(bodies, async (body) => {
            let sent: unknown = body;
            if (typeof body === "object" && body !== null && "proofs" in body) {
              const jwts = await Promise.all(
                (body.proofs as string[]).map((kind) => (kind.includes(".") || kind === "" ? kind : makeProof(kind))),
              );
              sent = { credential_configuration_id: BADGE_CONFIG, proofs: { jwt: jwts } };
            }
            const result = await http(credentialUrl, {
              method: "POST",
              headers: { authorization: `Bearer ${token.accessToken}`, "content-type": "application/json" },
              body: typeof sent === "string" ? sent : JSON.stringify(sent),
            });
            expectRefused(result, "oauth", { statuses: [400, 413], context: show(sent) });
          }),
          fcOptions(80),
        );
      });
    });

    it("hostile DPoP headers with a DPoP-bound token are refused and issue nothing", async () => {
      const offer = await createOffer(platform.url, tenant.apiKey);
      const { code } = await fetchOffer(offer);
      const token = await getToken(platform.url, code, p256Key());
      const other = p256Key();
      const dpops = fc.oneof(
        forgedJwt,
        headerValue,
        fc.constantFrom("other-key", "no-ath", "wrong-htu", "wrong-htm", "bad-nonce"),
      );
      const body = { credential_configuration_id: BADGE_CONFIG, proofs: { jwt: ["a.b.c"] } };
      await expectNoDatabaseChange(platform, async () => {
        await fc.assert(
          fc.asyncProperty(dpops, fc.constantFrom("DPoP", "Bearer"), async (dpop, scheme) => {
            let header = dpop;
            const key = token.dpopKey!;
            if (dpop === "other-key")
              header = await dpopProof({ key: other, htu: credentialUrl, accessToken: token.accessToken });
            if (dpop === "no-ath") header = await dpopProof({ key, htu: credentialUrl });
            if (dpop === "wrong-htu")
              header = await dpopProof({ key, htu: `${platform.url.issuer}/v1/nonce`, accessToken: token.accessToken });
            if (dpop === "wrong-htm")
              header = await dpopProof({ key, htu: credentialUrl, htm: "GET", accessToken: token.accessToken });
            if (dpop === "bad-nonce")
              header = await dpopProof({ key, htu: credentialUrl, accessToken: token.accessToken, nonce: "1.2.3" });
            const result = await http(credentialUrl, {
              method: "POST",
              headers: {
                authorization: `${scheme} ${token.accessToken}`,
                "content-type": "application/json",
                dpop: header,
              },
              body: JSON.stringify(body),
            });
            expectRefused(result, "oauth", { statuses: [400, 401], context: show({ scheme, header }) });
            expect(["invalid_dpop_proof", "use_dpop_nonce", "invalid_token"]).toContain(
              (result.json as { error: string }).error,
            );
          }),
          fcOptions(),
        );
      });
    });

    it("bodies beyond BODY_LIMIT_BYTES are 413 with the OAuth shape", async () => {
      const token = await bearerToken();
      for (const send of [oversizedPost, oversizedChunkedPost]) {
        const result = await send(issuerPort, "/credential", "application/json", {
          Authorization: `Bearer ${token.accessToken}`,
        });
        expectRefused(result, "oauth", { statuses: [413], context: send.name });
      }
    });
  });

  it("metadata and landing pages of hostile tenants are 404 (or 400), never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(urlText, fc.constantFrom(0, 1, 2), async (name, form) => {
        const segment = encodeHostile(name);
        const path =
          form === 0
            ? `/.well-known/openid-credential-issuer/${segment}`
            : form === 1
              ? `/${segment}/.well-known/openid-credential-issuer`
              : `/${segment}`;
        const result = await http(`${platform.url.issuer}${path}`);
        if (result.status === 200) {
          // Only a real tenant (or a reserved path such as /health) may answer.
          expect([tenant.tenant, "health"], show(name)).toContain(name.toLowerCase());
        } else {
          expectRefused(result, "api", { statuses: [400, 404, 414], context: show(name) });
        }
      }),
      fcOptions(),
    );
  });

  it("the landing page escapes a hostile organization name", async () => {
    const evil = await applyTenant(platform.url, { name: '<script>alert(1)</script>"><img src=x onerror=alert(1)>' });
    const result = await http(`${platform.url.issuer}/${evil.tenant}`);
    expect(result.status).toBe(200);
    expect(result.headers.get("content-type")).toMatch(/^text\/html/);
    expect(result.text).not.toContain("<script>alert");
    expect(result.text).not.toContain("<img src=x");
  });
});
