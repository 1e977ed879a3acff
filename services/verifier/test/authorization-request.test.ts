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
    it("answers exactly session_id, request_uri, authorization_request and expires_at (default 300 s)", async () => {
      const before = Date.now();
      const response = await create(valid());
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(["authorization_request", "expires_at", "request_uri", "session_id"]);
      expect(body.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(body.request_uri).toMatch(new RegExp(`^${PUBLIC_URL}/v1/verifier/request/[A-Za-z0-9_-]{32}$`));
      const clientId = `decentralized_identifier:${identity.did}`;
      expect(body.authorization_request).toBe(
        `openid4vp://?client_id=${encodeURIComponent(clientId)}&request_uri=${encodeURIComponent(body.request_uri)}`,
      );
      const ttl = Date.parse(body.expires_at) - before;
      expect(ttl).toBeGreaterThan(299_000);
      expect(ttl).toBeLessThan(302_000);
      expect(body.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
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
    const rejects = async (payload: unknown, message: RegExp) => {
      const response = await create(payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: "invalid_request", message: expect.stringMatching(message) });
    };

    it("rejects a missing or invalid DCQL query", async () => {
      const { dcql_query: _q, ...withoutQuery } = valid();
      await rejects(withoutQuery, /dcql_query is required/);
      await rejects({ ...valid(), dcql_query: "x" }, /dcql_query must be an object/);
      await rejects({ ...valid(), dcql_query: {} }, /dcql_query\.credentials is required/);
      await rejects({ ...valid(), dcql_query: { credentials: [] } }, /dcql_query\.credentials must not be empty/);
      await rejects({ ...valid(), dcql_query: pidQuery({ id: "has space" }) }, /credentials\[0\]\.id must match/);
      const twice = { credentials: [pidQuery().credentials[0], pidQuery().credentials[0]] };
      await rejects({ ...valid(), dcql_query: twice }, /ids must be unique/);
      await rejects({ ...valid(), dcql_query: pidQuery({ format: "mso_mdoc" }) }, /format 'mso_mdoc' is not supported/);
      await rejects({ ...valid(), dcql_query: pidQuery({ format: "jwt_vc_json" }) }, /is not supported/);
      await rejects({ ...valid(), dcql_query: pidQuery({ meta: { vct_values: "x" } }) }, /vct_values/);
      await rejects({ ...valid(), dcql_query: pidQuery({ claims: [{ path: [] }] }) }, /claims\[0\]\.path/);
      await rejects({ ...valid(), dcql_query: pidQuery({ claims: [{ path: [{}] }] }) }, /claims\[0\]\.path/);
      await rejects(
        { ...valid(), dcql_query: pidQuery({ trusted_authorities: [{ type: "did", values: "x" }] }) },
        /trusted_authorities\[0\]\.values/,
      );
    });

    it("rejects a verifier key of the wrong length or encoding", async () => {
      await rejects(
        { ...valid(), verifier_private_key: Buffer.alloc(31).toString("base64url") },
        /verifier_private_key.*32 bytes/,
      );
      await rejects(
        { ...valid(), verifier_private_key: Buffer.alloc(64).toString("base64url") },
        /verifier_private_key/,
      );
      await rejects({ ...valid(), verifier_private_key: "not*base64url!" }, /verifier_private_key/);
      await rejects({ ...valid(), verifier_private_key: 42 }, /verifier_private_key/);
      const { verifier_private_key: _k, ...withoutKey } = valid();
      await rejects(withoutKey, /verifier_private_key/);
    });

    it("rejects the other fields out of their rules", async () => {
      const { verifier_client_id: _c, ...withoutClientId } = valid();
      await rejects(withoutClientId, /verifier_client_id/);
      await rejects({ ...valid(), verifier_client_id: "" }, /verifier_client_id/);
      await rejects({ ...valid(), response_mode: "fragment" }, /response_mode/);
      await rejects({ ...valid(), expires_in: 59 }, /expires_in/);
      await rejects({ ...valid(), expires_in: 3601 }, /expires_in/);
      await rejects({ ...valid(), expires_in: 100.5 }, /expires_in/);
      await rejects({ ...valid(), redirect_uri: "not a url" }, /redirect_uri/);
      await rejects({ ...valid(), redirect_uri: "javascript:alert(1)" }, /redirect_uri/);
      await rejects({ ...valid(), client_metadata: { logo_uri: "nope" } }, /client_metadata\.logo_uri/);
    });
  });
});
