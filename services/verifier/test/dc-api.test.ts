import { CompactEncrypt, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { didKeyIssuer, type TestIssuer } from "./support/credentials.js";
import { API_KEYS } from "./support/edges.js";
import {
  type OpenedSession,
  pidQuery,
  readResult,
  startTestVerifier,
  type TestVerifier,
  verifierIdentity,
} from "./support/test-verifier.js";
import { presentationFor } from "./support/wallet.js";

const RP = "https://rp.example";
const EVIL = "https://evil.example";

interface DcApiCreated {
  session_id: string;
  dc_api_request: { protocol: string; data: Record<string, unknown> };
  expires_at: string;
}

/** The Digital Credentials API modes (OID4VP 1.0 Appendix A): creation, POST /v1/verifier/dc-api/:sessionId. */
describe("Digital Credentials API: dc_api and dc_api.jwt", () => {
  let verifier: TestVerifier;
  let issuer: TestIssuer;
  beforeAll(async () => {
    verifier = await startTestVerifier();
    issuer = didKeyIssuer(verifier.edges);
  });
  afterAll(() => verifier.close());

  const create = (body: Record<string, unknown>) =>
    verifier.app.inject({
      method: "POST",
      url: "/v1/verifier/authorization-request",
      headers: { "x-api-key": API_KEYS.verifier },
      payload: { dcql_query: pidQuery(), ...body },
    });

  async function open(body: Record<string, unknown>): Promise<DcApiCreated> {
    const response = await create(body);
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  const submit = (sessionId: string, data: unknown, origin: string | null = RP) =>
    verifier.app.inject({
      method: "POST",
      url: `/v1/verifier/dc-api/${sessionId}`,
      headers: origin === null ? {} : { origin },
      payload: { data } as Record<string, unknown>,
    });

  /** What the wallet presents: KB-JWT audience and nonce as given. */
  const vpToken = async (aud: string, nonce: string) => ({
    pid: [await presentationFor({ request: { client_id: aud, nonce } } as unknown as OpenedSession, { issuer })],
  });

  const status = async (sessionId: string) => (await readResult(verifier.app, sessionId)).json().status;

  describe("creation", () => {
    it("unsigned dc_api: dc_api_request carries the parameters, no client_id, no link", async () => {
      const created = await open({ response_mode: "dc_api", expected_origins: [RP] });
      expect(Object.keys(created).sort()).toEqual(["dc_api_request", "expires_at", "session_id"]);
      expect(created.dc_api_request).toEqual({
        protocol: "openid4vp-v1-unsigned",
        data: {
          response_type: "vp_token",
          response_mode: "dc_api",
          nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          dcql_query: pidQuery(),
          client_metadata: { vp_formats_supported: expect.any(Object) },
        },
      });
    });

    it("signed dc_api.jwt: a JWS with client_id, expected_origins and the encryption key; no response_uri", async () => {
      const identity = verifierIdentity();
      const created = await open({
        response_mode: "dc_api.jwt",
        verifier_private_key: identity.privateKey,
        verifier_client_id: identity.did,
        expected_origins: [`${RP}/`, "HTTPS://Other.Example:443"],
      });
      expect(created.dc_api_request.protocol).toBe("openid4vp-v1-signed");
      const jwt = created.dc_api_request.data.request as string;
      expect(decodeProtectedHeader(jwt)).toMatchObject({ alg: "EdDSA", typ: "oauth-authz-req+jwt" });
      const claims = decodeJwt(jwt);
      expect(claims).toMatchObject({
        client_id: `decentralized_identifier:${identity.did}`,
        expected_origins: [RP, "https://other.example"],
        response_type: "vp_token",
        response_mode: "dc_api.jwt",
        dcql_query: pidQuery(),
      });
      expect(claims).not.toHaveProperty("response_uri");
      expect(claims).not.toHaveProperty("state");
      const metadata = claims.client_metadata as {
        jwks: { keys: JWK[] };
        encrypted_response_enc_values_supported: string[];
      };
      expect(metadata.jwks.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ECDH-ES", use: "enc" });
      expect(metadata.encrypted_response_enc_values_supported).toEqual(["A128GCM", "A256GCM"]);
    });

    it("400 naming the field: signed without expected_origins, expected_origins elsewhere, bad origins, redirect_uri", async () => {
      const identity = verifierIdentity();
      const fieldsOf = async (body: Record<string, unknown>) => {
        const response = await create(body);
        expect(response.statusCode).toBe(400);
        return (response.json().errors as Array<{ field: string }>).map((error) => error.field);
      };
      const signed = { verifier_private_key: identity.privateKey, verifier_client_id: identity.did };
      expect(await fieldsOf({ ...signed, response_mode: "dc_api" })).toEqual(["expected_origins"]);
      expect(await fieldsOf({ ...signed, expected_origins: [RP] })).toEqual(["expected_origins"]);
      expect(await fieldsOf({ response_mode: "dc_api", expected_origins: [`${RP}/path`] })).toEqual([
        "expected_origins.0",
      ]);
      expect(await fieldsOf({ response_mode: "dc_api", expected_origins: ["null"] })).toEqual(["expected_origins.0"]);
      expect(await fieldsOf({ response_mode: "dc_api", redirect_uri: `${RP}/cb` })).toEqual(["redirect_uri"]);
      expect(await fieldsOf({ response_mode: "dc_api", verifier_private_key: identity.privateKey })).toEqual([
        "verifier_client_id",
      ]);
      // Outside the DC API modes the caller key stays required, as before.
      expect(await fieldsOf({})).toEqual(["verifier_private_key", "verifier_client_id"]);
    });

    it("a DC API session has no request object, QR code or page", async () => {
      const created = await open({ response_mode: "dc_api" });
      const requestUriId = (await verifier.deps.sessions.findById(created.session_id))!.requestUriId;
      for (const path of ["", "/qr.svg", "/page", "/status"]) {
        const response = await verifier.app.inject({
          method: "GET",
          url: `/v1/verifier/request/${requestUriId}${path}`,
        });
        expect(response.statusCode).toBe(404);
      }
    });
  });

  describe("POST /v1/verifier/dc-api/:sessionId", () => {
    const refused = (response: { statusCode: number; json(): unknown }, description: RegExp) =>
      expect([response.statusCode, response.json()]).toEqual([
        400,
        { error: "invalid_request", error_description: expect.stringMatching(description) },
      ]);

    it("unsigned dc_api: audience origin:<origin> of the calling page; completed, then single use", async () => {
      const created = await open({ response_mode: "dc_api", expected_origins: [RP] });
      const nonce = created.dc_api_request.data.nonce as string;
      const data = { vp_token: await vpToken(`origin:${RP}`, nonce) };
      const response = await submit(created.session_id, data);
      expect([response.statusCode, response.json()]).toEqual([200, {}]);
      expect(await status(created.session_id)).toBe("completed");
      expect((await verifier.deps.dcApiSessions.find(created.session_id))?.origin).toBe(RP);
      refused(await submit(created.session_id, data), /already submitted/);
    });

    it("refuses, leaving the session pending: no Origin, an origin outside expected_origins, a response made for another origin or session", async () => {
      const created = await open({ response_mode: "dc_api", expected_origins: [RP] });
      const nonce = created.dc_api_request.data.nonce as string;
      const good = { vp_token: await vpToken(`origin:${RP}`, nonce) };
      refused(await submit(created.session_id, good, null), /Origin header/);
      refused(await submit(created.session_id, good, EVIL), /expected_origins/);
      // A page on an allowed origin relays what a wallet made for another origin.
      refused(
        await submit(created.session_id, { vp_token: await vpToken(`origin:${EVIL}`, nonce) }),
        /not made for this session/,
      );
      // Another session's response posted here.
      const other = await open({ response_mode: "dc_api", expected_origins: [RP] });
      const othersResponse = { vp_token: await vpToken(`origin:${RP}`, other.dc_api_request.data.nonce as string) };
      refused(await submit(created.session_id, othersResponse), /not made for this session/);
      refused(await submit(created.session_id, { response: "a.b.c.d.e" }), /expects vp_token/);
      expect(await status(created.session_id)).toBe("pending");
      expect(await status(other.session_id)).toBe("pending");
      // Its own response still goes through.
      expect((await submit(created.session_id, good)).statusCode).toBe(200);
      expect(await status(created.session_id)).toBe("completed");
    });

    it("signed dc_api.jwt: the JWE to the ephemeral key, audience the client_id; a plain vp_token is refused", async () => {
      const identity = verifierIdentity();
      const created = await open({
        response_mode: "dc_api.jwt",
        verifier_private_key: identity.privateKey,
        verifier_client_id: identity.did,
        expected_origins: [RP],
      });
      const claims = decodeJwt(created.dc_api_request.data.request as string) as {
        nonce: string;
        client_id: string;
        client_metadata: { jwks: { keys: JWK[] } };
      };
      const jwk = claims.client_metadata.jwks.keys[0]!;
      const encrypt = async (payload: unknown) =>
        new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
          .setProtectedHeader({ alg: "ECDH-ES", enc: "A256GCM", kid: jwk.kid as string })
          .encrypt(await importJWK(jwk, "ECDH-ES"));
      refused(
        await submit(created.session_id, { vp_token: await vpToken(claims.client_id, claims.nonce) }),
        /encrypted response/,
      );
      // Unsigned-style audience on a signed request: not for this session.
      refused(
        await submit(created.session_id, {
          response: await encrypt({ vp_token: await vpToken(`origin:${RP}`, claims.nonce) }),
        }),
        /not made for this session/,
      );
      const response = await submit(created.session_id, {
        response: await encrypt({ vp_token: await vpToken(claims.client_id, claims.nonce) }),
      });
      expect([response.statusCode, response.json()]).toEqual([200, {}]);
      expect(await status(created.session_id)).toBe("completed");
    });

    it("refuses a direct_post session and an unknown one", async () => {
      const identity = verifierIdentity();
      const plain = await create({ verifier_private_key: identity.privateKey, verifier_client_id: identity.did });
      refused(await submit(plain.json().session_id, { vp_token: {} }), /does not take Digital Credentials API/);
      refused(await submit("00000000-0000-4000-8000-000000000000", { vp_token: {} }), /not found or expired/);
      expect((await submit("nope", { vp_token: {} })).statusCode).toBe(400);
    });
  });
});
