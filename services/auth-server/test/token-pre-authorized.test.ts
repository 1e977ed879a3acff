import { createAccessTokenVerifier, generateP256Jwk } from "@attesto/protocol";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AUTH_URL,
  ISSUER_URL,
  PRE_AUTHORIZED_GRANT,
  startTestAuthServer,
  type TestAuthServer,
} from "./support/test-auth-server.js";
import { expectNoStore, expectOAuthError, postToken } from "./support/token-requests.js";

describe("POST /v1/token: pre-authorized code, Bearer", () => {
  let server: TestAuthServer;
  let verifyToken: (token: string) => ReturnType<ReturnType<typeof createAccessTokenVerifier>["verify"]>;

  beforeAll(async () => {
    server = await startTestAuthServer();
    const jwks = (await server.app.inject({ method: "GET", url: "/.well-known/jwks.json" })).json();
    const verifier = createAccessTokenVerifier({ jwks, issuer: AUTH_URL });
    verifyToken = (token) => verifier.verify(token, { audience: `${ISSUER_URL}/acme` });
  });
  afterAll(() => server.close());

  const redeem = (code: string, extra: Record<string, string> = {}) =>
    postToken(server.app, { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": code, ...extra });

  /** The whole 200 answer of a token request. */
  function expectTokenResponse(response: LightMyRequestResponse, tokenType: "Bearer" | "DPoP"): string {
    expect(response.statusCode).toBe(200);
    expect(response.json()).toStrictEqual({
      access_token: expect.any(String),
      token_type: tokenType,
      expires_in: 3600,
    });
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expectNoStore(response);
    const nonce = response.headers["dpop-nonce"];
    expect(typeof nonce === "string" && server.deps.dpopNonces.verify(nonce)).toBe(true);
    return response.json().access_token;
  }

  it("200 with a Bearer access token the credential issuer can verify", async () => {
    server.grants.addOffer("code-1", { offerId: "offer-1", credentialConfigurationIds: ["diploma_v1", "pid_v1"] });
    const token = expectTokenResponse(await redeem("code-1"), "Bearer");
    const claims = await verifyToken(token);
    expect(claims).toStrictEqual({
      issuer: AUTH_URL,
      audience: `${ISSUER_URL}/acme`,
      subject: "offer-1",
      jti: expect.any(String),
      issuedAt: expect.any(Date),
      expiresAt: new Date(claims.issuedAt.getTime() + 3_600_000),
      tenant: "acme",
      offerId: "offer-1",
      credentialConfigurationIds: ["diploma_v1", "pid_v1"],
      dpopRequired: false,
    });
  });

  it("gives a Bearer token on the X.509 path too (the credential endpoint then demands DPoP)", async () => {
    server.grants.addOffer("code-x509", { offerId: "offer-x509", dpopRequired: true });
    const token = expectTokenResponse(await redeem("code-x509"), "Bearer");
    const claims = await verifyToken(token);
    expect(claims.dpopRequired).toBe(true);
    expect(claims).not.toHaveProperty("jkt");
  });

  it("passes tx_code (or the legacy user_pin) through to the issuer", async () => {
    server.grants.addOffer("code-tx", { offerId: "offer-tx" }, { txCode: "4321" });
    server.grants.addOffer("code-pin", { offerId: "offer-pin" }, { txCode: "9876" });
    expectTokenResponse(await redeem("code-tx", { tx_code: "4321", user_pin: "0000" }), "Bearer");
    expectTokenResponse(await redeem("code-pin", { user_pin: "9876" }), "Bearer");
    expect(server.grants.requests.slice(-2)).toEqual([
      { preAuthorizedCode: "code-tx", txCode: "4321" },
      { preAuthorizedCode: "code-pin", txCode: "9876" },
    ]);
  });

  it("ignores parameters it does not know (resource, client_id, authorization_details, ...)", async () => {
    server.grants.addOffer("code-extra", { offerId: "offer-extra" });
    const response = await redeem("code-extra", {
      resource: `${ISSUER_URL}/acme`,
      client_id: "some-wallet",
      authorization_details: "[]",
      scope: "diploma",
    });
    const claims = await verifyToken(expectTokenResponse(response, "Bearer"));
    expect(claims).not.toHaveProperty("clientId");
  });

  it("uses the audience of the grant's tenant", async () => {
    server.grants.addOffer("code-other-tenant", { offerId: "offer-o", tenant: "globex" });
    const token = expectTokenResponse(await redeem("code-other-tenant"), "Bearer");
    const jwks = (await server.app.inject({ method: "GET", url: "/.well-known/jwks.json" })).json();
    const claims = await createAccessTokenVerifier({ jwks, issuer: AUTH_URL }).verify(token, {
      audience: `${ISSUER_URL}/globex`,
    });
    expect(claims.tenant).toBe("globex");
  });

  it("of two racing redemptions of one code, exactly one succeeds", async () => {
    server.grants.addOffer("code-race", { offerId: "offer-race" });
    const responses = await Promise.all([redeem("code-race"), redeem("code-race"), redeem("code-race")]);
    const ok = responses.filter((r) => r.statusCode === 200);
    const refused = responses.filter((r) => r.statusCode !== 200);
    expect(ok).toHaveLength(1);
    expectTokenResponse(ok[0]!, "Bearer");
    for (const response of refused) {
      expectOAuthError(response, 400, "invalid_grant", "pre-authorized code has already been used");
    }
  });

  it("a retry after the issuer's answer was lost gets the token, and only once (503, then 200, then used)", async () => {
    server.grants.addOffer("code-lost", { offerId: "offer-lost" });
    server.grants.lostAnswers = 3; // the first attempt and both of the auth server's retries
    expectOAuthError(await redeem("code-lost"), 503, "unavailable", "credential issuer is unavailable");
    const token = expectTokenResponse(await redeem("code-lost"), "Bearer");
    expect((await verifyToken(token)).offerId).toBe("offer-lost");
    expectOAuthError(await redeem("code-lost"), 400, "invalid_grant", "pre-authorized code has already been used");
  });

  it("rides through a lost answer itself: the redemption is idempotent, so the auth server retries it", async () => {
    server.grants.addOffer("code-lost-once", { offerId: "offer-lost-once" });
    server.grants.lostAnswers = 1;
    expectTokenResponse(await redeem("code-lost-once"), "Bearer");
    expectOAuthError(await redeem("code-lost-once"), 400, "invalid_grant", "pre-authorized code has already been used");
  });

  it("exposes DPoP-Nonce to browsers (CORS)", async () => {
    server.grants.addOffer("code-cors", { offerId: "offer-cors" });
    const response = await redeem("code-cors");
    const cors = await postToken(server.app, { grant_type: "x" }, { headers: { origin: "https://wallet.example" } });
    expect(response.statusCode).toBe(200);
    expect(cors.headers["access-control-expose-headers"]).toContain("DPoP-Nonce");
  });
});

describe("POST /v1/token: a key that signs tokens by PEM", () => {
  it("accepts ACCESS_TOKEN_SIGNING_KEY as PKCS#8 PEM", async () => {
    const { createPrivateKey } = await import("node:crypto");
    const key = generateP256Jwk();
    const pem = createPrivateKey({ key, format: "jwk" }).export({ format: "pem", type: "pkcs8" }).toString();
    const server = await startTestAuthServer({ env: { ACCESS_TOKEN_SIGNING_KEY: pem } });
    try {
      const jwks = (await server.app.inject({ method: "GET", url: "/.well-known/jwks.json" })).json();
      expect(jwks.keys[0]).toMatchObject({ x: key.x, y: key.y });
    } finally {
      await server.close();
    }
  });
});
