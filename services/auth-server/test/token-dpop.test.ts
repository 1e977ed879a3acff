import { createAccessTokenVerifier, createDpopNonces, generateEd25519Jwk, generateP256Jwk } from "@attesto/protocol";
import { calculateJwkThumbprint, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AUTH_URL,
  DPOP_NONCE_SECRET,
  ISSUER_URL,
  PRE_AUTHORIZED_GRANT,
  startTestAuthServer,
  type TestAuthServer,
} from "./support/test-auth-server.js";
import { expectNoStore, expectOAuthError, postToken, tokenProof } from "./support/token-requests.js";

const publicPart = (jwk: JWK): JWK =>
  jwk.kty === "EC" ? { kty: "EC", crv: jwk.crv, x: jwk.x, y: jwk.y } : { kty: "OKP", crv: jwk.crv, x: jwk.x };

describe("POST /v1/token with DPoP (server nonces required)", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer();
  });
  afterAll(() => server.close());

  const redeem = (code: string, dpop: string | string[]) =>
    postToken(server.app, { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": code }, { dpop });

  /** The nonce dance: a proof without nonce, the 400 use_dpop_nonce answer, its DPoP-Nonce. */
  async function askNonce(code: string, key: JWK): Promise<string> {
    const response = await redeem(code, await tokenProof(key));
    expectOAuthError(response, 400, "use_dpop_nonce", "DPoP proof must carry the server-provided nonce");
    const nonce = response.headers["dpop-nonce"];
    expect(nonce).toMatch(/^[\x21\x23-\x5B\x5D-\x7E]+$/);
    return nonce as string;
  }

  async function verifiedClaims(token: string) {
    const jwks = (await server.app.inject({ method: "GET", url: "/.well-known/jwks.json" })).json();
    return createAccessTokenVerifier({ jwks, issuer: AUTH_URL }).verify(token, { audience: `${ISSUER_URL}/acme` });
  }

  it("runs the nonce dance without burning the code, then binds the token to the proof key", async () => {
    server.grants.addOffer("code-dance", { offerId: "offer-dance", dpopRequired: true });
    const key = generateP256Jwk();
    const nonce = await askNonce("code-dance", key);
    expect(server.grants.requests).toEqual([]);

    const response = await redeem("code-dance", await tokenProof(key, { nonce }));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toStrictEqual({ access_token: expect.any(String), token_type: "DPoP", expires_in: 3600 });
    expectNoStore(response);
    const fresh = response.headers["dpop-nonce"] as string;
    expect(server.deps.dpopNonces.verify(fresh)).toBe(true);

    const claims = await verifiedClaims(response.json().access_token);
    expect(claims.jkt).toBe(await calculateJwkThumbprint(publicPart(key)));
    expect(claims).toMatchObject({ dpopRequired: true, offerId: "offer-dance", subject: "offer-dance" });
  });

  it("accepts EdDSA proofs", async () => {
    server.grants.addOffer("code-ed", { offerId: "offer-ed" });
    const key = generateEd25519Jwk() as JWK;
    const nonce = await askNonce("code-ed", key);
    const response = await redeem("code-ed", await tokenProof(key, { nonce }));
    expect(response.statusCode).toBe(200);
    expect((await verifiedClaims(response.json().access_token)).jkt).toBe(
      await calculateJwkThumbprint(publicPart(key)),
    );
  });

  it("asks again (use_dpop_nonce) for an expired or foreign nonce", async () => {
    server.grants.addOffer("code-stale", { offerId: "offer-stale" });
    const key = generateP256Jwk();
    const expired = createDpopNonces({ secret: DPOP_NONCE_SECRET, now: () => new Date(Date.now() - 301_000) }).issue();
    const foreign = createDpopNonces({ secret: "f".repeat(32) }).issue();
    for (const nonce of [expired, foreign]) {
      const response = await redeem("code-stale", await tokenProof(key, { nonce }));
      expectOAuthError(response, 400, "use_dpop_nonce", "DPoP nonce is invalid or expired");
      expect(server.deps.dpopNonces.verify(response.headers["dpop-nonce"] as string)).toBe(true);
    }
    expect(server.grants.requests.filter((r) => r.preAuthorizedCode === "code-stale")).toEqual([]);
  });

  it("refuses a replayed proof (same jti) with invalid_dpop_proof, before redeeming", async () => {
    server.grants.addOffer("code-a", { offerId: "offer-a" });
    server.grants.addOffer("code-b", { offerId: "offer-b" });
    const key = generateP256Jwk();
    const nonce = await askNonce("code-a", key);
    const proof = await tokenProof(key, { nonce });
    expect((await redeem("code-a", proof)).statusCode).toBe(200);
    expectOAuthError(await redeem("code-b", proof), 400, "invalid_dpop_proof", "DPoP proof jti has already been used");
    expect(server.grants.requests.map((r) => r.preAuthorizedCode)).not.toContain("code-b");
  });

  it("refuses proofs failing structure, signature or claims with invalid_dpop_proof", async () => {
    server.grants.addOffer("code-bad", { offerId: "offer-bad" });
    const key = generateP256Jwk();
    const nonce = await askNonce("code-bad", key);
    const cases: Array<[string | string[], string]> = [
      // The bind address is not the public URL: htu must name the public one.
      [
        await tokenProof(key, { nonce, url: "http://127.0.0.1:8081/v1/token" }),
        "DPoP proof htu does not match the request URL",
      ],
      [await tokenProof(key, { nonce, url: `${AUTH_URL}/v1/par` }), "DPoP proof htu does not match the request URL"],
      [
        await tokenProof(key, { nonce, now: new Date(Date.now() - 301_000) }),
        "DPoP proof is too old (iat more than 300 s in the past)",
      ],
      [
        await tokenProof(key, { nonce, now: new Date(Date.now() + 120_000) }),
        "DPoP proof iat is in the future (more than 60 s ahead)",
      ],
      [[await tokenProof(key, { nonce }), await tokenProof(key, { nonce })], "Exactly one DPoP header is allowed"],
      [`${(await tokenProof(key, { nonce })).slice(0, -4)}AAAA`, "DPoP proof signature is invalid"],
      ["", "DPoP proof is missing"],
    ];
    for (const [dpop, description] of cases) {
      expectOAuthError(await redeem("code-bad", dpop), 400, "invalid_dpop_proof", description);
    }
    expect(server.grants.requests.filter((r) => r.preAuthorizedCode === "code-bad")).toEqual([]);
  });

  it("accepts an htu with a query string and the default port spelled out", async () => {
    server.grants.addOffer("code-htu", { offerId: "offer-htu" });
    const key = generateP256Jwk();
    const nonce = await askNonce("code-htu", key);
    const response = await redeem("code-htu", await tokenProof(key, { nonce, url: "HTTP://LOCALHOST:8081/v1/token" }));
    expect(response.statusCode).toBe(200);
  });
});

describe("POST /v1/token with DPoP, nonces not required (DPOP_NONCE_REQUIRED=false)", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer({ env: { DPOP_NONCE_REQUIRED: "false" } });
  });
  afterAll(() => server.close());

  it("binds the token on the first proof and still hands out a nonce", async () => {
    server.grants.addOffer("code-1", { offerId: "offer-1" });
    const key = generateP256Jwk();
    const response = await postToken(
      server.app,
      { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": "code-1" },
      { dpop: await tokenProof(key) },
    );
    expect(response.statusCode).toBe(200);
    expect(response.json().token_type).toBe("DPoP");
    expect(server.deps.dpopNonces.verify(response.headers["dpop-nonce"] as string)).toBe(true);
  });
});
