import { calculateJwkThumbprint } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_URL, startTestAuthServer, type TestAuthServer } from "./support/test-auth-server.js";

describe("GET /.well-known/oauth-authorization-server", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer();
  });
  afterAll(() => server.close());

  it("answers exactly this service's README document, issuer = the public URL", async () => {
    const response = await server.app.inject({ method: "GET", url: "/.well-known/oauth-authorization-server" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.json()).toStrictEqual({
      issuer: AUTH_URL,
      authorization_endpoint: `${AUTH_URL}/v1/authorize`,
      token_endpoint: `${AUTH_URL}/v1/token`,
      pushed_authorization_request_endpoint: `${AUTH_URL}/v1/par`,
      end_session_endpoint: `${AUTH_URL}/end_session`,
      jwks_uri: `${AUTH_URL}/.well-known/jwks.json`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "urn:ietf:params:oauth:grant-type:pre-authorized_code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["attest_jwt_client_auth"],
      client_attestation_signing_alg_values_supported: ["ES256", "EdDSA"],
      client_attestation_pop_signing_alg_values_supported: ["ES256", "EdDSA"],
      dpop_signing_alg_values_supported: ["ES256", "EdDSA"],
      authorization_details_types_supported: ["openid_credential"],
      authorization_response_iss_parameter_supported: true,
      id_token_signing_alg_values_supported: ["ES256"],
      "pre-authorized_grant_anonymous_access_supported": true,
    });
  });

  it("is public and exposed to browsers (CORS)", async () => {
    const response = await server.app.inject({
      method: "GET",
      url: "/.well-known/oauth-authorization-server",
      headers: { origin: "https://wallet.example" },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers["access-control-allow-origin"]).toBe("*");
  });
});

describe("GET /.well-known/jwks.json", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer();
  });
  afterAll(() => server.close());

  it("publishes the public access-token signing key with kid (its thumbprint), alg ES256 and use sig", async () => {
    const response = await server.app.inject({ method: "GET", url: "/.well-known/jwks.json" });
    expect(response.statusCode).toBe(200);
    const { kty, crv, x, y } = server.signingKey;
    expect(response.json()).toStrictEqual({
      keys: [{ kty, crv, x, y, kid: await calculateJwkThumbprint({ kty, crv, x, y }), alg: "ES256", use: "sig" }],
    });
    expect(response.body).not.toContain(server.signingKey.d);
  });
});
