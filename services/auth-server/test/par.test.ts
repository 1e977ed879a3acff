import { createHash, randomUUID } from "node:crypto";
import { createPkce, generateP256Jwk, type Pkce } from "@attesto/protocol";
import { calculateJwkThumbprint, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attestationHeaders,
  createTestWallet,
  offerAuthorizationCode,
  parFields,
  postPar,
  REQUEST_URI_PREFIX,
  type TestWallet,
} from "./support/authorization-code-flow.js";
import { AUTH_URL, ISSUER_URL, startTestAuthServer, type TestAuthServer } from "./support/test-auth-server.js";
import { expectNoStore, expectOAuthError, expectParameterErrors, tokenProof } from "./support/token-requests.js";

const PAR_URL = `${AUTH_URL}/v1/par`;

/** 400 `invalid_request` naming every failing parameter, each given as "<parameter> <message>". */
describe("POST /v1/par", () => {
  let server: TestAuthServer;
  let wallet: TestWallet;
  let pkce: Pkce;
  beforeAll(async () => {
    server = await startTestAuthServer();
    wallet = createTestWallet();
    pkce = createPkce();
  });
  afterAll(() => server.close());

  /** PAR with fresh attestation headers for `wallet`. */
  const push = async (fields: Record<string, string | string[]>, headers: Record<string, string | string[]> = {}) =>
    postPar(server.app, fields, { ...(await attestationHeaders(wallet)), ...headers });

  const stored = (requestUri: string) => {
    const handle = requestUri.slice(REQUEST_URI_PREFIX.length);
    return server.deps.authorizationRequests.findByRequestUriHash(createHash("sha256").update(handle).digest("hex"));
  };

  it("201 {request_uri, expires_in: 60}, not cached, with a DPoP nonce; the request is stored", async () => {
    const { issuerState, offerId } = offerAuthorizationCode(server);
    const response = await push(parFields(wallet, pkce, { issuer_state: issuerState }));
    expect(response.statusCode).toBe(201);
    expect(response.json()).toStrictEqual({ request_uri: expect.any(String), expires_in: 60 });
    expect(response.json().request_uri).toMatch(/^urn:ietf:params:oauth:request-uri:[A-Za-z0-9_-]{43}$/);
    expectNoStore(response);
    expect(server.deps.dpopNonces.verify(response.headers["dpop-nonce"] as string)).toBe(true);
    const request = await stored(response.json().request_uri);
    expect(request).toMatchObject({
      clientId: wallet.clientId,
      redirectUri: "https://wallet.example/callback",
      codeChallenge: pkce.codeChallenge,
      state: "wallet-state-1",
      issuerState,
      tenant: "acme",
      offerId,
      credentialConfigurationIds: ["diploma_v1"],
      clientAttested: true,
      status: "pushed",
    });
    expect(request!.expiresAt.getTime() - request!.createdAt.getTime()).toBe(60_000);
    expect(server.grants.issuerStateRequests.at(-1)).toEqual({ rpc: "resolve", issuerState });
  });

  it("issues a new request_uri per request", async () => {
    const { issuerState } = offerAuthorizationCode(server);
    const first = await push(parFields(wallet, pkce, { issuer_state: issuerState }));
    const second = await push(parFields(wallet, pkce, { issuer_state: issuerState }));
    expect(first.json().request_uri).not.toBe(second.json().request_uri);
  });

  it("accepts the issuer_state in upper case, a state of exactly 4096 characters and unknown parameters", async () => {
    const { issuerState } = offerAuthorizationCode(server);
    const response = await push(
      parFields(wallet, pkce, {
        issuer_state: issuerState.toUpperCase(),
        state: "s".repeat(4096),
        resource: `${ISSUER_URL}/acme`,
        prompt: "consent",
      }),
    );
    expect(response.statusCode).toBe(201);
    expect((await stored(response.json().request_uri))?.issuerState).toBe(issuerState);
  });

  describe("what the wallet asks for", () => {
    const configured = (response: { json(): { request_uri: string } }) =>
      stored(response.json().request_uri).then((r) => r?.credentialConfigurationIds);

    it("authorization_details (openid_credential) selects configurations of the offer", async () => {
      const { issuerState } = offerAuthorizationCode(server, {
        credentialConfigurationIds: ["diploma_v1", "transcript_v1"],
      });
      const details = [
        { type: "openid_credential", credential_configuration_id: "transcript_v1", locations: [`${ISSUER_URL}/acme`] },
      ];
      const response = await push(
        parFields(wallet, pkce, { issuer_state: issuerState, authorization_details: JSON.stringify(details) }),
      );
      expect(response.statusCode).toBe(201);
      expect(await configured(response)).toEqual(["transcript_v1"]);
    });

    it("scope selects a configuration of the offer; neither selects the whole offer", async () => {
      const { issuerState } = offerAuthorizationCode(server, {
        credentialConfigurationIds: ["diploma_v1", "transcript_v1"],
      });
      const scoped = await push(parFields(wallet, pkce, { issuer_state: issuerState, scope: "diploma_v1" }));
      expect(await configured(scoped)).toEqual(["diploma_v1"]);
      const all = await push(parFields(wallet, pkce, { issuer_state: issuerState }));
      expect(await configured(all)).toEqual(["diploma_v1", "transcript_v1"]);
    });

    it("400 invalid_authorization_details for another type, no configuration id, another configuration or location", async () => {
      const { issuerState } = offerAuthorizationCode(server);
      const cases: Array<[unknown[], string]> = [
        [[{ type: "payment_initiation" }], "authorization_details type must be openid_credential"],
        [
          [{ type: "openid_credential", format: "dc+sd-jwt" }],
          "authorization_details entries must carry a credential_configuration_id",
        ],
        [
          [{ type: "openid_credential", credential_configuration_id: "pid_v1" }],
          "authorization_details names a credential configuration that is not in the credential offer",
        ],
        [
          [
            {
              type: "openid_credential",
              credential_configuration_id: "diploma_v1",
              locations: ["https://other.example"],
            },
          ],
          `authorization_details locations must name ${ISSUER_URL}/acme`,
        ],
      ];
      for (const [details, description] of cases) {
        const response = await push(
          parFields(wallet, pkce, { issuer_state: issuerState, authorization_details: JSON.stringify(details) }),
        );
        expectOAuthError(response, 400, "invalid_authorization_details", description);
      }
    });

    it("400 invalid_request for authorization_details that is not a JSON array of objects with a type", async () => {
      const { issuerState } = offerAuthorizationCode(server);
      const cases: Array<[string, string]> = [
        ["{not json", "authorization_details must be a JSON array"],
        ['{"type":"openid_credential"}', "authorization_details must be a non-empty JSON array"],
        ["[]", "authorization_details must be a non-empty JSON array"],
        ['["openid_credential"]', "authorization_details entries must be JSON objects"],
        ['[{"credential_configuration_id":"diploma_v1"}]', "authorization_details entries must have a type"],
      ];
      for (const [details, description] of cases) {
        const response = await push(
          parFields(wallet, pkce, { issuer_state: issuerState, authorization_details: details }),
        );
        expectParameterErrors(response, description);
      }
    });

    it("400 invalid_scope for a scope that is not a configuration of the offer", async () => {
      const { issuerState } = offerAuthorizationCode(server);
      const response = await push(parFields(wallet, pkce, { issuer_state: issuerState, scope: "diploma_v1 pid_v1" }));
      expectOAuthError(
        response,
        400,
        "invalid_scope",
        "scope names a credential configuration that is not in the credential offer",
      );
    });
  });

  it("documents the form body its schema checks: required parameters, request_uri refused, an example", async () => {
    const document = (await server.app.inject({ method: "GET", url: "/openapi.json" })).json();
    const media = document.paths["/v1/par"].post.requestBody.content["application/x-www-form-urlencoded"];
    expect(media.schema.required).toEqual([
      "response_type",
      "client_id",
      "redirect_uri",
      "code_challenge",
      "code_challenge_method",
    ]);
    expect(media.schema.properties.request_uri.not).toEqual({});
    expect(media.schema.properties.state.type).toBe("string");
    expect(media.example).toMatchObject({ response_type: "code", code_challenge_method: "S256" });
  });

  describe("400 invalid_request", () => {
    it("for each missing required parameter, naming it", async () => {
      const { issuerState } = offerAuthorizationCode(server);
      for (const field of ["response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method"]) {
        for (const value of [undefined, ""]) {
          const response = await push(parFields(wallet, pkce, { issuer_state: issuerState, [field]: value }));
          expectParameterErrors(response, `${field} is required`);
        }
      }
    });

    it("for a body that is empty or not form-encoded", async () => {
      const empty = await server.app.inject({
        method: "POST",
        url: "/v1/par",
        headers: await attestationHeaders(wallet),
      });
      expectParameterErrors(
        empty,
        "response_type is required",
        "client_id is required",
        "redirect_uri is required",
        "code_challenge is required",
        "code_challenge_method is required",
      );
      const json = await server.app.inject({
        method: "POST",
        url: "/v1/par",
        headers: await attestationHeaders(wallet),
        payload: parFields(wallet, pkce),
      });
      expectOAuthError(
        json,
        400,
        "invalid_request",
        "pushed authorization request body must be application/x-www-form-urlencoded",
      );
    });

    it("for request_uri in the body (RFC 9126 §2.1), and for request objects", async () => {
      for (const requestUri of [`${REQUEST_URI_PREFIX}abc`, ""]) {
        const response = await push(parFields(wallet, pkce, { request_uri: requestUri }));
        expectParameterErrors(response, "request_uri must not be sent to the pushed authorization request endpoint");
      }
      const jar = await push(parFields(wallet, pkce, { request: "eyJhbGciOiJub25lIn0.e30." }));
      expectParameterErrors(jar, "request (a request object) is not supported");
    });

    it("for a response_type other than code", async () => {
      for (const responseType of ["token", "code id_token", "CODE"]) {
        const response = await push(parFields(wallet, pkce, { response_type: responseType }));
        expectParameterErrors(response, "response_type must be code");
      }
    });

    it("for code_challenge_method plain or anything but S256", async () => {
      for (const method of ["plain", "s256", "S512"]) {
        const response = await push(parFields(wallet, pkce, { code_challenge_method: method }));
        expectParameterErrors(response, "code_challenge_method must be S256");
      }
    });

    it("for a code_challenge that is not 43 base64url characters", async () => {
      for (const challenge of [
        "short",
        `${pkce.codeChallenge}A`,
        `${pkce.codeChallenge.slice(0, 42)}=`,
        pkce.codeVerifier.padEnd(64, "x"),
      ]) {
        const response = await push(parFields(wallet, pkce, { code_challenge: challenge }));
        expectParameterErrors(response, "code_challenge must be 43 base64url characters (base64url of a SHA-256 hash)");
      }
    });

    it("for a redirect_uri that is relative, has a fragment or a dangerous scheme", async () => {
      const cases: Array<[string, string]> = [
        ["/callback", "redirect_uri must be an absolute URI"],
        ["https://wallet.example/cb#frag", "redirect_uri must not contain a fragment"],
        ["javascript:alert(1)", "redirect_uri scheme is not allowed"],
        ["data:text/html,hi", "redirect_uri scheme is not allowed"],
      ];
      for (const [redirectUri, description] of cases) {
        const response = await push(parFields(wallet, pkce, { redirect_uri: redirectUri }));
        expectParameterErrors(response, description);
      }
    });

    it("for an issuer_state that is not a UUID", async () => {
      for (const issuerState of ["abc", "12345678-1234-1234-1234-12345678901", `${randomUUID()}x`]) {
        const response = await push(parFields(wallet, pkce, { issuer_state: issuerState }));
        expectParameterErrors(response, "issuer_state must be a UUID");
      }
    });

    it("for an issuer_state of no live authorization-code offer (unknown, expired, redeemed)", async () => {
      const expired = offerAuthorizationCode(server, {}, { expiresAt: new Date(Date.now() - 1000) });
      const redeemed = offerAuthorizationCode(server);
      await server.grantService.redeemIssuerState({ issuerState: redeemed.issuerState });
      for (const issuerState of [randomUUID(), expired.issuerState, redeemed.issuerState]) {
        const response = await push(parFields(wallet, pkce, { issuer_state: issuerState }));
        expectOAuthError(
          response,
          400,
          "invalid_request",
          "issuer_state is unknown, or its credential offer has expired or was used",
        );
      }
    });

    it("for a state longer than 4096 characters", async () => {
      const response = await push(parFields(wallet, pkce, { state: "s".repeat(4097) }));
      expectParameterErrors(response, "state must be at most 4096 characters");
    });

    it("for a repeated parameter", async () => {
      const response = await push(parFields(wallet, pkce, { client_id: [wallet.clientId, wallet.clientId] }));
      expectParameterErrors(response, "client_id must not be repeated");
    });

    it("for several bad parameters at once, naming every one", async () => {
      const response = await push(
        parFields(wallet, pkce, {
          response_type: "token",
          redirect_uri: "/callback",
          code_challenge_method: "plain",
          state: "s".repeat(4097),
        }),
      );
      expectParameterErrors(
        response,
        "response_type must be code",
        "redirect_uri must be an absolute URI",
        "code_challenge_method must be S256",
        "state must be at most 4096 characters",
      );
    });

    it("for a malformed dpop_jkt", async () => {
      const response = await push(parFields(wallet, pkce, { dpop_jkt: "not-a-thumbprint" }));
      expectParameterErrors(response, "dpop_jkt must be a base64url SHA-256 JWK thumbprint");
    });
  });

  describe("DPoP (RFC 9449 §10): binding the code to a key", () => {
    it("runs the nonce dance, then records the proof key", async () => {
      const { issuerState } = offerAuthorizationCode(server);
      const key = generateP256Jwk() as JWK;
      const fields = parFields(wallet, pkce, { issuer_state: issuerState });
      const first = await push(fields, { dpop: await tokenProof(key, { url: PAR_URL }) });
      expectOAuthError(first, 400, "use_dpop_nonce", "DPoP proof must carry the server-provided nonce");
      const nonce = first.headers["dpop-nonce"] as string;
      const second = await push(fields, { dpop: await tokenProof(key, { url: PAR_URL, nonce }) });
      expect(second.statusCode).toBe(201);
      const { kty, crv, x, y } = key;
      expect((await stored(second.json().request_uri))?.dpopJkt).toBe(
        await calculateJwkThumbprint({ kty, crv, x, y } as JWK),
      );
    });

    it("refuses a proof for another endpoint, and a dpop_jkt that is not the proof key's", async () => {
      const { issuerState } = offerAuthorizationCode(server);
      const key = generateP256Jwk() as JWK;
      const fields = parFields(wallet, pkce, { issuer_state: issuerState });
      const nonce = server.deps.dpopNonces.issue();
      const wrongUrl = await push(fields, { dpop: await tokenProof(key, { nonce }) });
      expectOAuthError(wrongUrl, 400, "invalid_dpop_proof", "DPoP proof htu does not match the request URL");
      const otherJkt = await calculateJwkThumbprint(generateP256Jwk() as JWK);
      const mismatch = await push(parFields(wallet, pkce, { issuer_state: issuerState, dpop_jkt: otherJkt }), {
        dpop: await tokenProof(key, { url: PAR_URL, nonce }),
      });
      expectOAuthError(mismatch, 400, "invalid_dpop_proof", "dpop_jkt does not match the key of the DPoP proof");
    });

    it("accepts dpop_jkt alone", async () => {
      const { issuerState } = offerAuthorizationCode(server);
      const jkt = await calculateJwkThumbprint(generateP256Jwk() as JWK);
      const response = await push(parFields(wallet, pkce, { issuer_state: issuerState, dpop_jkt: jkt }));
      expect((await stored(response.json().request_uri))?.dpopJkt).toBe(jkt);
    });
  });
});

describe("POST /v1/par: credential issuer unreachable", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer({ grantService: "down" });
  });
  afterAll(() => server.close());

  it("503 unavailable with the OAuth error shape", async () => {
    const wallet = createTestWallet();
    const response = await postPar(
      server.app,
      parFields(wallet, createPkce(), { issuer_state: randomUUID() }),
      await attestationHeaders(wallet),
    );
    expectOAuthError(response, 503, "unavailable", "credential issuer is unavailable");
  });
});

describe("POST /v1/par without required attestation (CLIENT_ATTESTATION_REQUIRED_AUTH_CODE=false)", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer({ env: { CLIENT_ATTESTATION_REQUIRED_AUTH_CODE: "false" } });
  });
  afterAll(() => server.close());

  it("accepts a public client without attestation headers, and still verifies attestations that are sent", async () => {
    const wallet = createTestWallet();
    const { issuerState } = offerAuthorizationCode(server);
    const fields = parFields(wallet, createPkce(), { issuer_state: issuerState });
    const anonymous = await postPar(server.app, fields);
    expect(anonymous.statusCode).toBe(201);
    const other = createTestWallet();
    const mismatched = await postPar(server.app, fields, await attestationHeaders(other));
    expectOAuthError(mismatched, 401, "invalid_client", "client_id does not match the client attestation sub");
  });
});
