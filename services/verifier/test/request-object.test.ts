import { publicJwkFromDidKey } from "@attesto/protocol";
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEYS } from "./support/edges.js";
import {
  PUBLIC_URL,
  pidQuery,
  startTestVerifier,
  type TestVerifier,
  verifierIdentity,
} from "./support/test-verifier.js";

describe("GET /v1/verifier/request/:requestUriId", () => {
  let verifier: TestVerifier;
  beforeAll(async () => {
    verifier = await startTestVerifier();
  });
  afterAll(() => verifier.close());

  async function create(body: Record<string, unknown> = {}) {
    const identity = verifierIdentity();
    const response = await verifier.app.inject({
      method: "POST",
      url: "/v1/verifier/authorization-request",
      headers: { "x-api-key": API_KEYS.verifier },
      payload: {
        dcql_query: pidQuery(),
        verifier_private_key: identity.privateKey,
        verifier_client_id: identity.did,
        ...body,
      },
    });
    expect(response.statusCode).toBe(201);
    const created = response.json();
    const path = new URL(created.request_uri).pathname;
    return { identity, created, path };
  }

  it("serves a JWS typed oauth-authz-req+jwt, signed with the verifier key, with exactly the request object claims", async () => {
    const { identity, created, path } = await create({
      client_metadata: { client_name: "Acme", policy_uri: "https://acme.example/privacy" },
    });
    const response = await verifier.app.inject({ method: "GET", url: path });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/oauth-authz-req+jwt");
    expect(response.headers["cache-control"]).toBe("no-store");
    const jws = response.body;
    const kid = `${identity.did}#${identity.did.slice("did:key:".length)}`;
    expect(decodeProtectedHeader(jws)).toEqual({ alg: "EdDSA", typ: "oauth-authz-req+jwt", kid });
    await compactVerify(jws, await importJWK(publicJwkFromDidKey(identity.did), "EdDSA"));
    const claims = decodeJwt(jws);
    const clientId = `decentralized_identifier:${identity.did}`;
    expect(Object.keys(claims).sort()).toEqual(
      [
        "iss",
        "aud",
        "client_id",
        "response_type",
        "response_mode",
        "response_uri",
        "nonce",
        "state",
        "dcql_query",
        "client_metadata",
        "iat",
        "exp",
      ].sort(),
    );
    expect(claims).toMatchObject({
      iss: identity.did,
      aud: "https://self-issued.me/v2",
      client_id: clientId,
      response_type: "vp_token",
      response_mode: "direct_post",
      response_uri: `${PUBLIC_URL}/v1/verifier/presentation`,
      dcql_query: pidQuery(),
      client_metadata: {
        client_name: "Acme",
        policy_uri: "https://acme.example/privacy",
        vp_formats_supported: {
          "dc+sd-jwt": { "sd-jwt_alg_values": ["ES256", "EdDSA"], "kb-jwt_alg_values": ["ES256", "EdDSA"] },
        },
      },
      exp: Math.floor(Date.parse(created.expires_at) / 1000),
    });
    expect(claims.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(claims.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(claims.nonce).not.toBe(claims.state);
    expect(Math.abs((claims.iat as number) - Date.now() / 1000)).toBeLessThan(5);
    expect(new URL(created.authorization_request).searchParams.get("client_id")).toBe(claims.client_id);
  });

  it("can be fetched more than once, also by POST (request_uri_method=post) with a wallet_nonce", async () => {
    const { path } = await create();
    const first = decodeJwt((await verifier.app.inject({ method: "GET", url: path })).body);
    const second = decodeJwt((await verifier.app.inject({ method: "GET", url: path })).body);
    expect(second).toMatchObject({ nonce: first.nonce, state: first.state, client_id: first.client_id });
    const posted = await verifier.app.inject({
      method: "POST",
      url: path,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "wallet_nonce=wn-123&wallet_metadata=%7B%7D",
    });
    expect(posted.statusCode).toBe(200);
    expect(posted.headers["content-type"]).toBe("application/oauth-authz-req+jwt");
    expect(decodeJwt(posted.body)).toMatchObject({ nonce: first.nonce, wallet_nonce: "wn-123" });
    const empty = await verifier.app.inject({ method: "POST", url: path });
    expect(empty.statusCode).toBe(200);
  });

  it("offers a fresh ephemeral P-256 key for direct_post.jwt", async () => {
    const a = decodeJwt(
      (await verifier.app.inject({ method: "GET", url: (await create({ response_mode: "direct_post.jwt" })).path }))
        .body,
    );
    const b = decodeJwt(
      (await verifier.app.inject({ method: "GET", url: (await create({ response_mode: "direct_post.jwt" })).path }))
        .body,
    );
    const metadata = a.client_metadata as { jwks: { keys: Array<Record<string, unknown>> }; [k: string]: unknown };
    expect(a.response_mode).toBe("direct_post.jwt");
    expect(metadata.encrypted_response_enc_values_supported).toEqual(["A128GCM", "A256GCM"]);
    expect(metadata.jwks.keys).toHaveLength(1);
    const key = metadata.jwks.keys[0]!;
    expect(key).toMatchObject({ kty: "EC", crv: "P-256", use: "enc", alg: "ECDH-ES" });
    expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"]);
    const otherKey = (b.client_metadata as typeof metadata).jwks.keys[0]!;
    expect(otherKey.kid).not.toBe(key.kid);
    expect(otherKey.x).not.toBe(key.x);
  });

  it("uses a URL client id as given, without kid, with the public key as the header's jwk", async () => {
    const { identity, path } = await create({ verifier_client_id: "https://verifier.acme.example" });
    const jws = (await verifier.app.inject({ method: "GET", url: path })).body;
    const publicJwk = publicJwkFromDidKey(identity.did);
    expect(decodeProtectedHeader(jws)).toEqual({
      alg: "EdDSA",
      typ: "oauth-authz-req+jwt",
      jwk: { kty: "OKP", crv: "Ed25519", x: publicJwk.x },
    });
    await compactVerify(jws, await importJWK(publicJwk, "EdDSA"));
    expect(decodeJwt(jws)).toMatchObject({
      client_id: "https://verifier.acme.example",
      iss: "https://verifier.acme.example",
    });
  });

  it("is 404 for an unknown id and once the session has expired", async () => {
    const unknown = await verifier.app.inject({ method: "GET", url: "/v1/verifier/request/unknown-id" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: "not_found", message: "Request object not found or expired" });
    const { path } = await create({ expires_in: 60 });
    verifier.clock.advance(61);
    try {
      expect((await verifier.app.inject({ method: "GET", url: path })).statusCode).toBe(404);
      expect((await verifier.app.inject({ method: "POST", url: path })).statusCode).toBe(404);
    } finally {
      verifier.clock.advance(-61);
    }
  });
});
