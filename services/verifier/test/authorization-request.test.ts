import { invalidFieldsBody } from "@attesto/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEYS } from "./support/edges.js";
import {
  PUBLIC_URL,
  pidQuery,
  startTestVerifier,
  type TestVerifier,
  verifierIdentity,
} from "./support/test-verifier.js";

describe("POST /v1/verifier/authorization-request", () => {
  let verifier: TestVerifier;
  const identity = verifierIdentity();
  const valid = () => ({
    dcql_query: pidQuery(),
    verifier_private_key: identity.privateKey,
    verifier_client_id: identity.did,
  });

  beforeAll(async () => {
    verifier = await startTestVerifier();
  });
  afterAll(() => verifier.close());

  const create = (payload: unknown, apiKey: string | null = API_KEYS.verifier) =>
    verifier.app.inject({
      method: "POST",
      url: "/v1/verifier/authorization-request",
      headers: apiKey === null ? {} : { "x-api-key": apiKey },
      payload: payload as Record<string, unknown>,
    });

  describe("authentication", () => {
    it("answers the API key errors before looking at the body", async () => {
      const missing = await create({}, null);
      expect([missing.statusCode, missing.json()]).toEqual([
        401,
        { error: "unauthorized", message: "API Key is required" },
      ]);
      const missingKey = await create(valid(), null);
      expect([missingKey.statusCode, missingKey.json()]).toEqual([
        401,
        { error: "unauthorized", message: "API Key is required" },
      ]);
      const invalid = await create(valid(), "nope");
      expect([invalid.statusCode, invalid.json()]).toEqual([
        401,
        { error: "unauthorized", message: "Invalid API Key" },
      ]);
      const pending = await create(valid(), API_KEYS.pending);
      expect([pending.statusCode, pending.json()]).toEqual([
        401,
        { error: "unauthorized", message: "Account is not approved" },
      ]);
    });

    it("forbids a tenant that is not a verifier", async () => {
      const response = await create(valid(), API_KEYS.issuerOnly);
      expect([response.statusCode, response.json()]).toEqual([403, { error: "forbidden", message: "Forbidden" }]);
    });
  });

  describe("201", () => {
    it("answers exactly session_id, request_uri, authorization_request, qr_code_url, page_url and expires_at (default 300 s)", async () => {
      const before = Date.now();
      const response = await create(valid());
      expect(response.statusCode).toBe(201);
      const body = response.json();
      const clientId = `decentralized_identifier:${identity.did}`;
      expect(body).toEqual({
        session_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        request_uri: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/v1/verifier/request/[A-Za-z0-9_-]{32}$`)),
        authorization_request: `openid4vp://?client_id=${encodeURIComponent(clientId)}&request_uri=${encodeURIComponent(body.request_uri)}`,
        qr_code_url: `${body.request_uri}/qr.svg`,
        page_url: `${body.request_uri}/page`,
        expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      const ttl = Date.parse(body.expires_at) - before;
      expect(ttl).toBeGreaterThan(299_000);
      expect(ttl).toBeLessThan(302_000);
    });

    it("honours expires_in, response_mode, client_metadata and redirect_uri", async () => {
      const before = Date.now();
      const response = await create({
        ...valid(),
        expires_in: 3600,
        response_mode: "direct_post.jwt",
        client_metadata: { client_name: "Acme", logo_uri: "https://acme.example/logo.png" },
        redirect_uri: "https://acme.example/callback",
      });
      expect(response.statusCode).toBe(201);
      expect(Date.parse(response.json().expires_at) - before).toBeGreaterThan(3_599_000);
      expect((await create({ ...valid(), expires_in: 60 })).statusCode).toBe(201);
    });

    it("keeps a URL client id as given and prefixes a DID once", async () => {
      const url = await create({ ...valid(), verifier_client_id: "https://verifier.acme.example" });
      expect(url.json().authorization_request).toMatch(
        /^openid4vp:\/\/\?client_id=https%3A%2F%2Fverifier\.acme\.example&/,
      );
      const prefixed = await create({ ...valid(), verifier_client_id: `decentralized_identifier:${identity.did}` });
      expect(new URL(prefixed.json().authorization_request).searchParams.get("client_id")).toBe(
        `decentralized_identifier:${identity.did}`,
      );
    });
  });

  describe("400 names the problem", () => {
    /** A field the route schema refuses: listed in `errors`. */
    const rejectsField = async (payload: unknown, message: string) => {
      const response = await create(payload);
      expect([response.statusCode, response.json()]).toEqual([400, invalidFieldsBody(message)]);
    };
    const credential0 = "dcql_query.credentials.0";

    it("rejects a missing or invalid DCQL query", async () => {
      const { dcql_query: _q, ...withoutQuery } = valid();
      await rejectsField(withoutQuery, "dcql_query is required");
      await rejectsField({ ...valid(), dcql_query: "x" }, "dcql_query must be a JSON object");
      await rejectsField({ ...valid(), dcql_query: {} }, "dcql_query.credentials is required");
      await rejectsField({ ...valid(), dcql_query: { credentials: [] } }, "dcql_query.credentials must not be empty");
      await rejectsField(
        { ...valid(), dcql_query: pidQuery({ id: "has space" }) },
        `${credential0}.id has an invalid format`,
      );
      const twice = { credentials: [pidQuery().credentials[0], pidQuery().credentials[0]] };
      await rejectsField(
        { ...valid(), dcql_query: twice },
        "dcql_query.credentials ids must be unique: an id is repeated",
      );
      for (const format of ["jwt_vc_json", "ldp_vc"]) {
        await rejectsField(
          { ...valid(), dcql_query: pidQuery({ format }) },
          `${credential0}.format must be one of dc+sd-jwt, mso_mdoc`,
        );
      }
      await rejectsField(
        { ...valid(), dcql_query: pidQuery({ format: "mso_mdoc" }) },
        `${credential0}.meta.doctype_value is required for mso_mdoc`,
      );
      await rejectsField(
        { ...valid(), dcql_query: pidQuery({ meta: { vct_values: "x" } }) },
        `${credential0}.meta.vct_values must be an array`,
      );
      await rejectsField(
        { ...valid(), dcql_query: pidQuery({ claims: [{ path: [] }] }) },
        `${credential0}.claims.0.path must not be empty`,
      );
      await rejectsField(
        { ...valid(), dcql_query: pidQuery({ claims: [{ path: [{}] }] }) },
        `${credential0}.claims.0.path.0 must be a string, a non-negative integer or null`,
      );
      await rejectsField(
        { ...valid(), dcql_query: pidQuery({ trusted_authorities: [{ type: "did", values: "x" }] }) },
        `${credential0}.trusted_authorities.0.values must be an array`,
      );
    });

    it("names every failing field of the request at once, the DCQL query's and the key's with the others", async () => {
      await rejectsField(
        {
          dcql_query: { credentials: [{ id: "has space", format: "jwt_vc_json" }] },
          verifier_private_key: Buffer.alloc(31).toString("base64url"),
          verifier_client_id: "",
          expires_in: 1,
        },
        [
          `${credential0}.id has an invalid format`,
          `${credential0}.format must be one of dc+sd-jwt, mso_mdoc`,
          `${credential0}.meta is required`,
          "verifier_private_key must be a base64url Ed25519 private key of 32 bytes (Ed25519 private key must be 32 bytes, got 31)",
          "verifier_client_id must not be empty",
          "expires_in must be at least 60",
        ].join("; "),
      );
      // A well-formed query that breaks a DCQL rule is named with the other fields too.
      const twice = { credentials: [pidQuery().credentials[0], pidQuery().credentials[0]] };
      await rejectsField(
        { dcql_query: twice, verifier_client_id: identity.did, response_mode: "fragment" },
        [
          "dcql_query.credentials ids must be unique: an id is repeated",
          "response_mode must be one of direct_post, direct_post.jwt, dc_api, dc_api.jwt",
          "verifier_private_key is required (base64url Ed25519 private key, 32 bytes)",
        ].join("; "),
      );
    });

    it("rejects a verifier key of the wrong length or encoding", async () => {
      const wrongKey = "verifier_private_key must be a base64url Ed25519 private key of 32 bytes";
      await rejectsField(
        { ...valid(), verifier_private_key: Buffer.alloc(31).toString("base64url") },
        `${wrongKey} (Ed25519 private key must be 32 bytes, got 31)`,
      );
      await rejectsField(
        { ...valid(), verifier_private_key: Buffer.alloc(64).toString("base64url") },
        `${wrongKey} (Ed25519 private key must be 32 bytes, got 64)`,
      );
      await rejectsField(
        { ...valid(), verifier_private_key: "not*base64url!" },
        `${wrongKey} (private key must be base64url)`,
      );
      const required = "verifier_private_key is required (base64url Ed25519 private key, 32 bytes)";
      await rejectsField({ ...valid(), verifier_private_key: 42 }, "verifier_private_key must be a string");
      const { verifier_private_key: _k, ...withoutKey } = valid();
      await rejectsField(withoutKey, required);
    });

    it("rejects the other fields out of their rules", async () => {
      const { verifier_client_id: _c, ...withoutClientId } = valid();
      await rejectsField(withoutClientId, "verifier_client_id is required (the verifier's DID or URL)");
      await rejectsField({ ...valid(), verifier_client_id: 7 }, "verifier_client_id must be a string");
      await rejectsField(
        { ...valid(), verifier_client_id: "did:key:z a" },
        "verifier_client_id must not contain whitespace",
      );
      await rejectsField({ ...valid(), verifier_client_id: "" }, "verifier_client_id must not be empty");
      await rejectsField(
        { ...valid(), response_mode: "fragment" },
        "response_mode must be one of direct_post, direct_post.jwt, dc_api, dc_api.jwt",
      );
      await rejectsField({ ...valid(), expires_in: 59 }, "expires_in must be at least 60");
      await rejectsField({ ...valid(), expires_in: 3601 }, "expires_in must be at most 3600");
      await rejectsField({ ...valid(), expires_in: 100.5 }, "expires_in must be an integer number of seconds");
      await rejectsField({ ...valid(), redirect_uri: "not a url" }, "redirect_uri must be a URL");
      await rejectsField(
        { ...valid(), redirect_uri: "javascript:alert(1)" },
        "redirect_uri must not use that URL scheme",
      );
      await rejectsField(
        { ...valid(), client_metadata: { logo_uri: "nope" } },
        "client_metadata.logo_uri must be a URL",
      );
    });
  });
});
