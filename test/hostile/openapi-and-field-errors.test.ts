import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyTenant,
  BADGE_CLAIMS,
  BADGE_CONFIG,
  createOffer,
  didKeyIssuer,
  fetchOffer,
  getToken,
  issueCredential,
  PASSWORD,
  type Tenant,
  type TokenResult,
} from "./support/flows.js";
import { http, postForm, postJson } from "./support/http.js";
import { SERVICE_NAMES, SERVICE_PORTS, startTestPlatform, type TestPlatform } from "./support/platform.js";

/**
 * The running platform over real HTTP: every public port serves a valid OpenAPI 3.1 document at
 * `GET /openapi.json`, and a request with several bad fields gets every one of them listed in one
 * answer (`errors`), with the status and error code the endpoint always gave.
 */
const PORT_OFFSET = 20_900;

describe("OpenAPI documents and field errors on the running platform", () => {
  let platform: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    platform = await startTestPlatform({ portOffset: PORT_OFFSET, label: "openapi" });
    tenant = await applyTenant(platform.url);
  });

  afterAll(async () => {
    await platform?.close();
  });

  it("serves a valid OpenAPI 3.1 document on every public port", async () => {
    for (const service of SERVICE_NAMES) {
      const publicUrl = `http://localhost:${SERVICE_PORTS[service] + PORT_OFFSET}`;
      const response = await http(`${publicUrl}/openapi.json`);
      expect(response.status, service).toBe(200);
      expect(response.headers.get("content-type"), service).toMatch(/^application\/json/);
      const document = response.json as { openapi: string; info: { title: string }; servers: unknown };
      expect(document.openapi, service).toBe("3.1.0");
      expect(document.info.title, service).toBe(`Attesto ${service} API`);
      expect(document.servers, service).toEqual([{ url: publicUrl }]);
      const result = await new Validator().validate(document as Parameters<Validator["validate"]>[0]);
      expect({ service, errors: result.errors }).toEqual({ service, errors: undefined });
    }
  });

  /** Every bad field named, and the status and code of the endpoint. */
  const expectFieldErrors = (
    response: { status: number; json: unknown },
    expected: { status: number; error: string; fields: string[] },
  ) => {
    const body = response.json as { error: string; errors?: Array<{ field: string; message: string }> };
    expect({ status: response.status, error: body.error }).toEqual({ status: expected.status, error: expected.error });
    // A field breaking several rules (a short password without a digit) is listed once per rule.
    expect([...new Set(body.errors?.map((error) => error.field))].sort()).toEqual([...expected.fields].sort());
    for (const error of body.errors ?? []) expect(error.message).toMatch(/^(is|must|has) /);
  };

  it("trust registry POST /v1/apply lists every bad field", async () => {
    const response = await postJson(`${platform.url.trust}/v1/apply`, { name: "", password: "short", tenant: 7 });
    expectFieldErrors(response, { status: 400, error: "invalid_request", fields: ["name", "password", "tenant"] });
  });

  it("credential issuer POST /v1/offers lists every bad field", async () => {
    const response = await postJson(
      `${platform.url.issuer}/v1/offers`,
      { credential: { config_id: "" }, flow: "sideways", expires_in: 5 },
      { "x-api-key": tenant.apiKey },
    );
    expectFieldErrors(response, {
      status: 400,
      error: "invalid_request",
      fields: ["credential.config_id", "credential.claims", "flow", "expires_in"],
    });
  });

  it("credential issuer POST /credential lists every bad field, as invalid_credential_request", async () => {
    const offer = await createOffer(platform.url, tenant.apiKey, { signing: didKeyIssuer(tenant.tenant) });
    const token: TokenResult = await getToken(platform.url, (await fetchOffer(offer)).code);
    const response = await http(`${platform.url.issuer}/credential`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token.accessToken}` },
      body: JSON.stringify({ credential_configuration_id: 7, is_on_chain: "yes", proofs: { jwt: [] } }),
    });
    expectFieldErrors(response, {
      status: 400,
      error: "invalid_credential_request",
      fields: ["credential_configuration_id", "is_on_chain", "proofs.jwt"],
    });
  });

  it("authorization server POST /v1/token lists every missing parameter of the grant", async () => {
    const response = await postForm(`${platform.url.auth}/v1/token`, { grant_type: "authorization_code" });
    expectFieldErrors(response, {
      status: 400,
      error: "invalid_request",
      fields: ["code", "redirect_uri", "client_id"],
    });
    expect((response.json as Record<string, unknown>).error_description).toBe(
      "code is required; redirect_uri is required; client_id is required",
    );
  });

  it("verifier POST /v1/verifier/authorization-request lists every bad field", async () => {
    const response = await postJson(
      `${platform.url.verifier}/v1/verifier/authorization-request`,
      { dcql_query: { credentials: [] }, verifier_client_id: "", expires_in: 1 },
      { "x-api-key": tenant.apiKey },
    );
    const body = response.json as { errors?: Array<{ field: string }> };
    expect(response.status).toBe(400);
    expect(body.errors?.map((error) => error.field)).toEqual(
      expect.arrayContaining(["verifier_private_key", "verifier_client_id", "expires_in"]),
    );
  });

  it("holder POST /v1/user/register and POST /v1/oid4vci/receive list every bad field", async () => {
    const register = await postJson(`${platform.url.holder}/v1/user/register`, { password: "short", name: 7 });
    expectFieldErrors(register, { status: 400, error: "invalid_request", fields: ["password", "name"] });

    const user = await postJson(`${platform.url.holder}/v1/user/register`, { password: PASSWORD });
    const uuid = (user.json as { uuid: string }).uuid;
    const login = await postJson(`${platform.url.holder}/v1/user/login`, { uuid, password: PASSWORD });
    const accessToken = (login.json as { access_token: string }).access_token;
    const receive = await postJson(
      `${platform.url.holder}/v1/oid4vci/receive`,
      { credential_offer_uri: 7, notarize_on_ledger: "no" },
      { authorization: `Bearer ${accessToken}` },
    );
    expectFieldErrors(receive, {
      status: 400,
      error: "invalid_request",
      fields: ["credential_offer_uri", "holder_did", "private_key", "notarize_on_ledger"],
    });
  });

  describe("the four answers of issue 29, each naming every failing field at once", () => {
    it("an offer with four wrong claims names all four, in plain words", async () => {
      const { family_name: _f, ...withoutFamilyName } = BADGE_CLAIMS;
      const response = await postJson(
        `${platform.url.issuer}/v1/offers`,
        {
          credential: {
            config_id: BADGE_CONFIG,
            claims: { ...withoutFamilyName, given_name: 7, email: "not an address", employment_type: "boss" },
          },
          flow: "pre-authorized",
        },
        { "x-api-key": tenant.apiKey },
      );
      expect({ status: response.status, body: response.json }).toEqual({
        status: 400,
        body: {
          error: "invalid_request",
          message: expect.stringMatching(/^credential\.claims\.family_name is required; /),
          errors: [
            { field: "credential.claims.family_name", message: "is required" },
            { field: "credential.claims.given_name", message: "must be a string" },
            { field: "credential.claims.email", message: "must be an email address" },
            {
              field: "credential.claims.employment_type",
              message: "must be one of full_time, part_time, contractor, intern",
            },
          ],
        },
      });
    });

    it("claims that are not an object: no validator type name", async () => {
      const response = await postJson(
        `${platform.url.issuer}/v1/offers`,
        { credential: { config_id: BADGE_CONFIG, claims: "x" }, flow: "pre-authorized" },
        { "x-api-key": tenant.apiKey },
      );
      expect(response.json).toEqual({
        error: "invalid_request",
        message: "credential.claims must be a JSON object",
        errors: [{ field: "credential.claims", message: "must be a JSON object" }],
      });
    });

    it("the verifier's authorization request in one round trip", async () => {
      const response = await postJson(
        `${platform.url.verifier}/v1/verifier/authorization-request`,
        {
          dcql_query: { credentials: [{ id: "a b", format: "jwt_vc_json", meta: {} }] },
          verifier_private_key: "too-short",
          expires_in: 1,
        },
        { "x-api-key": tenant.apiKey },
      );
      expect(response.status).toBe(400);
      expect((response.json as { errors: Array<{ field: string }> }).errors.map((error) => error.field)).toEqual([
        "dcql_query.credentials.0.id",
        "dcql_query.credentials.0.format",
        "verifier_private_key",
        "expires_in",
        "verifier_client_id",
      ]);
    });

    it("PATCH /v1/credentials/:id with a status that does not exist names only the status", async () => {
      await issueCredential(platform.url, tenant);
      const listed = await http(`${platform.url.issuer}/v1/credentials?limit=1`, {
        headers: { "x-api-key": tenant.apiKey },
      });
      const [credential] = (listed.json as { credentials: Array<{ id: string }> }).credentials;
      const response = await http(`${platform.url.issuer}/v1/credentials/${credential?.id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
        body: JSON.stringify({ status: "deleted" }),
      });
      expect({ status: response.status, body: response.json }).toEqual({
        status: 400,
        body: {
          error: "invalid_request",
          message: "status must be one of active, suspended, revoked",
          errors: [{ field: "status", message: "must be one of active, suspended, revoked" }],
        },
      });
    });
  });

  it("schema registry GET /schemas lists every bad query parameter", async () => {
    const response = await http(`${platform.url.schema}/schemas?sort_by=name&offset=-1&limit=0`);
    expectFieldErrors(response, { status: 400, error: "invalid_request", fields: ["sort_by", "offset", "limit"] });
  });
});
