import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PRE_AUTHORIZED_GRANT, startTestAuthServer, type TestAuthServer } from "./support/test-auth-server.js";
import { expectOAuthError, expectParameterErrors, postToken } from "./support/token-requests.js";

describe("POST /v1/token: request errors", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer();
  });
  afterAll(() => server.close());
  afterEach(() => {
    // None of these requests may reach the credential issuer.
    expect(server.grants.requests).toEqual([]);
  });

  it("400 invalid_request without grant_type (no body at all, or an empty form)", async () => {
    const noBody = await server.app.inject({ method: "POST", url: "/v1/token" });
    expectParameterErrors(noBody, "grant_type is required");
    expectParameterErrors(await postToken(server.app, {}), "grant_type is required");
    expectParameterErrors(await postToken(server.app, { grant_type: "" }), "grant_type is required");
  });

  it("400 unsupported_grant_type for an unknown grant type", async () => {
    for (const grantType of ["password", "client_credentials", "refresh_token", "urn:x", "__proto__", "toString"]) {
      expectOAuthError(
        await postToken(server.app, { grant_type: grantType }),
        400,
        "unsupported_grant_type",
        "grant_type is not supported; use urn:ietf:params:oauth:grant-type:pre-authorized_code or authorization_code",
      );
    }
  });

  it("400 invalid_request for a repeated parameter", async () => {
    expectParameterErrors(
      await postToken(server.app, {
        grant_type: [PRE_AUTHORIZED_GRANT, PRE_AUTHORIZED_GRANT],
        "pre-authorized_code": "c",
      }),
      "grant_type must not be repeated",
    );
    expectParameterErrors(
      await postToken(server.app, { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": ["a", "b"] }),
      "pre-authorized_code must not be repeated",
    );
  });

  it("400 invalid_request naming every failing parameter at once, and a document saying what the form holds", async () => {
    expectParameterErrors(
      await postToken(server.app, { grant_type: "authorization_code", code: ["a", "b"], tx_code: ["1", "2"] }),
      "tx_code must not be repeated",
      "code must not be repeated",
      "redirect_uri is required",
      "client_id is required",
    );
    const document = (await server.app.inject({ method: "GET", url: "/openapi.json" })).json();
    const media = document.paths["/v1/token"].post.requestBody.content["application/x-www-form-urlencoded"];
    expect(media.schema.required).toEqual(["grant_type"]);
    expect(Object.keys(media.schema.properties)).toEqual(
      expect.arrayContaining(["pre-authorized_code", "tx_code", "code", "code_verifier", "redirect_uri", "client_id"]),
    );
    expect(media.examples.example1.value).toEqual({
      grant_type: PRE_AUTHORIZED_GRANT,
      "pre-authorized_code": expect.any(String),
    });
  });

  it("400 invalid_request for the pre-authorized grant without pre-authorized_code", async () => {
    const cases: Array<Record<string, string>> = [
      { grant_type: PRE_AUTHORIZED_GRANT },
      { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": "" },
    ];
    for (const fields of cases) {
      expectParameterErrors(await postToken(server.app, fields), "pre-authorized_code is required");
    }
  });

  it("authorization_code: 400 invalid_request without code, redirect_uri or client_id; invalid_grant for an unknown code", async () => {
    const full = {
      grant_type: "authorization_code",
      code: "abc",
      code_verifier: "v".repeat(43),
      redirect_uri: "https://wallet.example/cb",
      client_id: "wallet",
    };
    for (const field of ["code", "redirect_uri", "client_id"]) {
      const { [field]: _omitted, ...fields } = full as Record<string, string>;
      const response = await postToken(server.app, fields);
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 400,
        body: {
          error: "invalid_request",
          error_description: `${field} is required`,
          errors: [{ field, message: "is required" }],
        },
      });
    }
    expectOAuthError(await postToken(server.app, full), 400, "invalid_grant", "authorization code is invalid");
  });

  it("400 invalid_request for a body that is not form-encoded", async () => {
    const json = await server.app.inject({
      method: "POST",
      url: "/v1/token",
      payload: { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": "c" },
    });
    expectOAuthError(json, 400, "invalid_request", "token request body must be application/x-www-form-urlencoded");
  });

  it("400 invalid_dpop_proof for a malformed DPoP header, before the code is redeemed", async () => {
    server.grants.addOffer("code-dpop", { offerId: "offer-dpop" });
    expectOAuthError(
      await postToken(
        server.app,
        { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": "code-dpop" },
        { dpop: "x" },
      ),
      400,
      "invalid_dpop_proof",
      "DPoP proof is not a compact JWS",
    );
  });
});

describe("POST /v1/token: grants the credential issuer refuses", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer();
  });
  afterAll(() => server.close());

  const redeem = (code: string, extra: Record<string, string> = {}) =>
    postToken(server.app, { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": code, ...extra });

  it("400 invalid_grant for an unknown code", async () => {
    expectOAuthError(await redeem("nope"), 400, "invalid_grant", "pre-authorized code is unknown");
  });

  it("400 invalid_grant for a code already used", async () => {
    server.grants.addOffer("used", { offerId: "o-used" });
    expect((await redeem("used")).statusCode).toBe(200);
    expectOAuthError(await redeem("used"), 400, "invalid_grant", "pre-authorized code has already been used");
  });

  it("400 invalid_grant for an expired code", async () => {
    server.grants.addOffer("expired", { offerId: "o-expired" }, { expiresAt: new Date(Date.now() - 1000) });
    expectOAuthError(await redeem("expired"), 400, "invalid_grant", "pre-authorized code has expired");
  });

  it("400 invalid_grant for a missing or wrong tx_code", async () => {
    server.grants.addOffer("with-tx", { offerId: "o-tx" }, { txCode: "1234" });
    expectOAuthError(await redeem("with-tx"), 400, "invalid_grant", "tx_code is wrong or missing");
    expectOAuthError(await redeem("with-tx", { tx_code: "9999" }), 400, "invalid_grant", "tx_code is wrong or missing");
    expect((await redeem("with-tx", { tx_code: "1234" })).statusCode).toBe(200);
  });
});

describe("POST /v1/token: credential issuer unreachable", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer({ grantService: "down" });
  });
  afterAll(() => server.close());

  it("503 with the OAuth error shape", async () => {
    const response = await postToken(server.app, { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": "c" });
    expectOAuthError(response, 503, "unavailable", "credential issuer is unavailable");
  });
});
