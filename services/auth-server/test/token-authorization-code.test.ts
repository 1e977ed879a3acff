import { createHash } from "node:crypto";
import { createAccessTokenVerifier, createPkce, generateEd25519Jwk, generateP256Jwk } from "@attesto/protocol";
import type { LightMyRequestResponse } from "fastify";
import { calculateJwkThumbprint, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attestationHeaders,
  createTestWallet,
  type IssuedCode,
  obtainAuthorizationCode,
  REDIRECT_URI,
} from "./support/authorization-code-flow.js";
import { AUTH_URL, ISSUER_URL, startTestAuthServer, type TestAuthServer } from "./support/test-auth-server.js";
import { expectNoStore, expectOAuthError, postToken, tokenProof } from "./support/token-requests.js";

const publicPart = (jwk: JWK): JWK =>
  jwk.kty === "EC" ? { kty: "EC", crv: jwk.crv, x: jwk.x, y: jwk.y } : { kty: "OKP", crv: jwk.crv, x: jwk.x };

/** The token request fields of an issued code (each test overrides what it breaks). */
const tokenFields = (issued: IssuedCode, overrides: Record<string, string | undefined> = {}) =>
  Object.fromEntries(
    Object.entries({
      grant_type: "authorization_code",
      code: issued.code,
      code_verifier: issued.pkce.codeVerifier,
      redirect_uri: REDIRECT_URI,
      client_id: issued.wallet.clientId,
      ...overrides,
    }).filter(([, value]) => value !== undefined),
  ) as Record<string, string>;

describe("POST /v1/token: authorization_code grant", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer();
  });
  afterAll(() => server.close());

  /** The code exchange, with a fresh client attestation of the code's wallet (unless headers are given). */
  async function exchange(
    issued: IssuedCode,
    overrides: Record<string, string | undefined> = {},
    options: { dpop?: string; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    const headers = options.headers ?? (await attestationHeaders(issued.wallet, { now: server.clock.now() }));
    return postToken(server.app, tokenFields(issued, overrides), {
      headers,
      ...(options.dpop === undefined ? {} : { dpop: options.dpop }),
    });
  }

  async function claimsOf(response: LightMyRequestResponse, tenant = "acme") {
    expect(response.statusCode, response.body).toBe(200);
    const jwks = (await server.app.inject({ method: "GET", url: "/.well-known/jwks.json" })).json();
    return createAccessTokenVerifier({ jwks, issuer: AUTH_URL }).verify(response.json().access_token, {
      audience: `${ISSUER_URL}/${tenant}`,
    });
  }

  const codeHash = (code: string) => createHash("sha256").update(code).digest("hex");

  it("200 Bearer token for the authorized configuration, naming the client", async () => {
    const issued = await obtainAuthorizationCode(server);
    const response = await exchange(issued);
    expect(response.json()).toStrictEqual({ access_token: expect.any(String), token_type: "Bearer", expires_in: 3600 });
    expectNoStore(response);
    expect(server.deps.dpopNonces.verify(response.headers["dpop-nonce"] as string)).toBe(true);
    const claims = await claimsOf(response);
    expect(claims).toMatchObject({
      issuer: AUTH_URL,
      subject: issued.offerId,
      offerId: issued.offerId,
      tenant: "acme",
      credentialConfigurationIds: ["diploma_v1"],
      dpopRequired: false,
      clientId: issued.wallet.clientId,
    });
    expect(claims).not.toHaveProperty("jkt");
  });

  it("the token carries only the configuration the wallet asked for (scope or authorization_details)", async () => {
    const offer = { credentialConfigurationIds: ["diploma_v1", "transcript_v1"], dpopRequired: true };
    const scoped = await obtainAuthorizationCode(server, { offer, parOverrides: { scope: "transcript_v1" } });
    expect((await claimsOf(await exchange(scoped))).credentialConfigurationIds).toEqual(["transcript_v1"]);
    const details = JSON.stringify([{ type: "openid_credential", credential_configuration_id: "diploma_v1" }]);
    const detailed = await obtainAuthorizationCode(server, { offer, parOverrides: { authorization_details: details } });
    const claims = await claimsOf(await exchange(detailed));
    expect(claims.credentialConfigurationIds).toEqual(["diploma_v1"]);
    expect(claims.dpopRequired).toBe(true);
  });

  it("DPoP: the nonce dance does not burn the code; the token is bound to the proof key (cnf.jkt)", async () => {
    const issued = await obtainAuthorizationCode(server);
    const key = generateEd25519Jwk() as JWK;
    const first = await exchange(issued, {}, { dpop: await tokenProof(key) });
    expectOAuthError(first, 400, "use_dpop_nonce", "DPoP proof must carry the server-provided nonce");
    const nonce = first.headers["dpop-nonce"] as string;
    const response = await exchange(issued, {}, { dpop: await tokenProof(key, { nonce }) });
    expect(response.json().token_type).toBe("DPoP");
    expect((await claimsOf(response)).jkt).toBe(await calculateJwkThumbprint(publicPart(key)));
  });

  describe("PKCE (S256)", () => {
    it("400 invalid_grant for a missing, wrong or malformed code_verifier; the code stays usable", async () => {
      const issued = await obtainAuthorizationCode(server);
      const cases: Array<[string | undefined, string]> = [
        [undefined, "code_verifier is required"],
        ["", "code_verifier is required"],
        [createPkce().codeVerifier, "code_verifier does not match the code_challenge"],
        [issued.pkce.codeChallenge, "code_verifier does not match the code_challenge"],
        ["too-short", "code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_', '~'"],
      ];
      for (const [codeVerifier, description] of cases) {
        expectOAuthError(await exchange(issued, { code_verifier: codeVerifier }), 400, "invalid_grant", description);
      }
      expect((await exchange(issued)).statusCode).toBe(200);
    });
  });

  it("400 invalid_grant for a redirect_uri or client_id other than the authorization request's", async () => {
    const issued = await obtainAuthorizationCode(server);
    for (const redirectUri of ["https://wallet.example/other", `${REDIRECT_URI}/`, `${REDIRECT_URI}?x=1`]) {
      expectOAuthError(
        await exchange(issued, { redirect_uri: redirectUri }),
        400,
        "invalid_grant",
        "redirect_uri does not match the authorization request",
      );
    }
    // Another client, authenticated with its own attestation.
    const other = createTestWallet();
    expectOAuthError(
      await exchange(issued, { client_id: other.clientId }, { headers: await attestationHeaders(other) }),
      400,
      "invalid_grant",
      "client_id does not match the authorization request",
    );
  });

  it("400 invalid_grant for an unknown or expired code (60 s)", async () => {
    const issued = await obtainAuthorizationCode(server);
    expectOAuthError(
      await exchange(issued, { code: "x".repeat(43) }),
      400,
      "invalid_grant",
      "authorization code is invalid",
    );
    server.clock.advance(61);
    try {
      expectOAuthError(await exchange(issued), 400, "invalid_grant", "authorization code has expired");
    } finally {
      server.clock.advance(-61);
    }
  });

  it("a replayed code is refused and revokes the token it issued", async () => {
    const issued = await obtainAuthorizationCode(server);
    const first = await exchange(issued);
    const { jti } = await claimsOf(first);
    expect(await server.deps.authorizationCodes.isAccessTokenRevoked(jti)).toBe(false);
    const replay = await exchange(issued);
    expectOAuthError(replay, 400, "invalid_grant", "authorization code has already been used");
    expect(await server.deps.authorizationCodes.isAccessTokenRevoked(jti)).toBe(true);
    const stored = await server.deps.authorizationCodes.find(codeHash(issued.code));
    expect(stored).toMatchObject({ accessTokenJti: jti, revokedAt: expect.any(Date), redeemedAt: expect.any(Date) });
    // Replays stay refused.
    expectOAuthError(await exchange(issued), 400, "invalid_grant", "authorization code has already been used");
  });

  describe("client attestation at the token endpoint", () => {
    it("401 invalid_client without attestation when the PAR was attested", async () => {
      const issued = await obtainAuthorizationCode(server);
      const response = await exchange(issued, {}, { headers: {} });
      expectOAuthError(
        response,
        401,
        "invalid_client",
        "OAuth-Client-Attestation and OAuth-Client-Attestation-PoP headers are required: the authorization request was authenticated with a client attestation",
      );
      expect((await exchange(issued)).statusCode).toBe(200);
    });

    it("401 invalid_client for a faulty attestation (verified again)", async () => {
      const issued = await obtainAuthorizationCode(server);
      const other = createTestWallet();
      expectOAuthError(
        await exchange(issued, {}, { headers: await attestationHeaders(other) }),
        401,
        "invalid_client",
        "client_id does not match the client attestation sub",
      );
      expectOAuthError(
        await exchange(
          issued,
          {},
          { headers: await attestationHeaders(issued.wallet, { audience: `${AUTH_URL}/v1/token` }) },
        ),
        401,
        "invalid_client",
        `client attestation PoP aud must be the authorization server issuer ${AUTH_URL}`,
      );
      const headers = await attestationHeaders(issued.wallet);
      expect((await exchange(issued, {}, { headers })).statusCode).toBe(200);
    });
  });

  describe("a code bound to a DPoP key at PAR (RFC 9449 §10)", () => {
    it("needs a proof of that key", async () => {
      const key = generateP256Jwk() as JWK;
      const jkt = await calculateJwkThumbprint(publicPart(key));
      const issued = await obtainAuthorizationCode(server, { parOverrides: { dpop_jkt: jkt } });
      const nonce = server.deps.dpopNonces.issue();
      expectOAuthError(
        await exchange(issued),
        400,
        "invalid_dpop_proof",
        "DPoP proof is required: the authorization request was bound to a DPoP key",
      );
      expectOAuthError(
        await exchange(issued, {}, { dpop: await tokenProof(generateP256Jwk(), { nonce }) }),
        400,
        "invalid_dpop_proof",
        "DPoP proof key does not match the key the authorization request was bound to",
      );
      const response = await exchange(issued, {}, { dpop: await tokenProof(key, { nonce }) });
      expect((await claimsOf(response)).jkt).toBe(jkt);
    });
  });
});

describe("POST /v1/token: authorization_code without required attestation at the token endpoint", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer({ env: { CLIENT_ATTESTATION_REQUIRED_AT_TOKEN: "false" } });
  });
  afterAll(() => server.close());

  it("accepts the exchange without attestation headers, and still verifies one that is sent", async () => {
    const issued = await obtainAuthorizationCode(server);
    const other = createTestWallet();
    expectOAuthError(
      await postToken(server.app, tokenFields(issued), { headers: await attestationHeaders(other) }),
      401,
      "invalid_client",
      "client_id does not match the client attestation sub",
    );
    const response = await postToken(server.app, tokenFields(issued));
    expect(response.statusCode).toBe(200);
  });
});

describe("POST /v1/token: authorization_code for a public client (CLIENT_ATTESTATION_REQUIRED_AUTH_CODE=false)", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer({ env: { CLIENT_ATTESTATION_REQUIRED_AUTH_CODE: "false" } });
  });
  afterAll(() => server.close());

  it("a PAR without attestation gives a code redeemable without attestation", async () => {
    const issued = await obtainAuthorizationCode(server, {
      parHeaders: { "OAuth-Client-Attestation": "", "OAuth-Client-Attestation-PoP": "" },
    });
    const response = await postToken(server.app, tokenFields(issued));
    expect(response.statusCode).toBe(200);
  });
});
