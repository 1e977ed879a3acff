/**
 * Interop: the OpenWallet Foundation wallet library (@openid4vc/openid4vp, Openid4vpClient) talks to
 * the verifier over real HTTP: it resolves our `openid4vp://` URL, fetches and verifies the signed
 * request object through its callbacks, answers with an SD-JWT VC presentation built by
 * @sd-jwt/sd-jwt-vc (with KB-JWT), in direct_post and in encrypted direct_post.jwt.
 */
import { createHash } from "node:crypto";
import { createServer } from "node:net";
import { publicJwkFromDidKey } from "@attesto/protocol";
import type { CallbackContext, JweEncryptor, Jwk, JwtSigner } from "@openid4vc/oauth2";
import { Openid4vpClient } from "@openid4vc/openid4vp";
import { setGlobalConfig } from "@openid4vc/utils";
import { CompactEncrypt, compactVerify, importJWK, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { didLedgerIssuer, holderKey, issueCredential, PID_VCT, presentCredential } from "./support/credentials.js";
import { API_KEYS } from "./support/edges.js";
import { pidQuery, startTestVerifier, type TestVerifier, verifierIdentity } from "./support/test-verifier.js";

setGlobalConfig({ allowInsecureUrls: true });

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** What the wallet fetched: method and path. */
const walletRequests: string[] = [];

/** The wallet's crypto, given to the library as callbacks. */
const callbacks: Omit<CallbackContext, "generateRandom" | "clientAuthentication"> = {
  hash: (data: Uint8Array, alg: string) =>
    new Uint8Array(createHash(alg.replace("-", "").toLowerCase()).update(data).digest()),
  async verifyJwt(signer: JwtSigner, jwt: { compact: string }) {
    if (signer.method !== "did" || !signer.didUrl.startsWith("did:key:")) return { verified: false as const };
    const publicJwk = publicJwkFromDidKey(signer.didUrl) as JWK as Jwk;
    try {
      await compactVerify(jwt.compact, await importJWK(publicJwk as JWK, signer.alg));
      return { verified: true as const, signerJwk: publicJwk };
    } catch {
      return { verified: false as const };
    }
  },
  async signJwt(): Promise<never> {
    throw new Error("the wallet signs nothing here but its SD-JWT KB-JWT");
  },
  async encryptJwe(encryptor: JweEncryptor, data: string) {
    const publicJwk = encryptor.publicJwk as JWK;
    const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
      .setProtectedHeader({ alg: encryptor.alg, enc: encryptor.enc, ...(publicJwk.kid ? { kid: publicJwk.kid } : {}) })
      .setKeyManagementParameters({
        ...(encryptor.apu ? { apu: Buffer.from(encryptor.apu, "base64url") } : {}),
        ...(encryptor.apv ? { apv: Buffer.from(encryptor.apv, "base64url") } : {}),
      })
      .encrypt(await importJWK(publicJwk, encryptor.alg));
    return { jwe, encryptionJwk: encryptor.publicJwk };
  },
  async decryptJwe(): Promise<never> {
    throw new Error("not used");
  },
  fetch: ((input: string | URL | Request, init?: RequestInit) => {
    walletRequests.push(`${(init?.method ?? "GET").toUpperCase()} ${new URL(String(input)).pathname}`);
    return fetch(input, init);
  }) as CallbackContext["fetch"],
};

describe("interop: @openid4vc/openid4vp wallet against the running verifier", () => {
  let verifier: TestVerifier;
  let baseUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    verifier = await startTestVerifier({ publicUrl: baseUrl });
    await verifier.app.listen({ host: "127.0.0.1", port });
  });
  afterAll(() => verifier.close());

  async function createRequest(responseMode: "direct_post" | "direct_post.jwt") {
    const identity = verifierIdentity();
    const response = await fetch(`${baseUrl}/v1/verifier/authorization-request`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": API_KEYS.verifier },
      body: JSON.stringify({
        dcql_query: pidQuery(),
        verifier_private_key: identity.privateKey,
        verifier_client_id: identity.did,
        response_mode: responseMode,
        client_metadata: { client_name: "Acme Rentals" },
        redirect_uri: "https://rentals.example/done",
      }),
    });
    expect(response.status).toBe(201);
    return { identity, created: (await response.json()) as { session_id: string; authorization_request: string } };
  }

  const cases: Array<{ mode: "direct_post" | "direct_post.jwt"; requestUriMethod?: "post" }> = [
    { mode: "direct_post" },
    { mode: "direct_post", requestUriMethod: "post" },
    { mode: "direct_post.jwt" },
  ];

  for (const { mode, requestUriMethod } of cases) {
    const label = `${mode}${requestUriMethod ? " (request_uri_method=post)" : ""}`;
    it(`presents an SD-JWT VC with KB-JWT in ${label}`, async () => {
      const { identity, created } = await createRequest(mode);
      const wallet = new Openid4vpClient({ callbacks });
      walletRequests.length = 0;

      const parsed = wallet.parseOpenid4vpAuthorizationRequest({ authorizationRequest: created.authorization_request });
      expect(parsed.type).toBe("jar");
      const resolved = await wallet.resolveOpenId4vpAuthorizationRequest({
        authorizationRequestPayload: {
          ...parsed.params,
          ...(requestUriMethod ? { request_uri_method: requestUriMethod } : {}),
        } as never,
        ...(requestUriMethod ? { wallet: { metadata: { vp_formats_supported: { "dc+sd-jwt": {} } } as never } } : {}),
      });
      const request = resolved.authorizationRequestPayload as Record<string, unknown> & {
        client_id: string;
        nonce: string;
      };
      expect(resolved.client).toMatchObject({ prefix: "decentralized_identifier", identifier: identity.did });
      expect(resolved.jar?.signer).toMatchObject({ method: "did", didUrl: expect.stringMatching(/^did:key:/) });
      expect(resolved.dcql?.query).toEqual(pidQuery());
      expect(request).toMatchObject({ response_mode: mode, response_uri: `${baseUrl}/v1/verifier/presentation` });

      // The holder's credential, issued as the platform issuer does; the wallet discloses what the query asks.
      const holder = holderKey();
      const issuer = didLedgerIssuer(verifier.edges);
      const credential = await issueCredential({ issuer, holder });
      const vp = await presentCredential(credential, { given_name: true, family_name: true }, holder, {
        aud: request.client_id,
        nonce: request.nonce,
      });

      const response = await wallet.createOpenid4vpAuthorizationResponse({
        authorizationRequestPayload: resolved.authorizationRequestPayload,
        authorizationResponsePayload: { vp_token: { pid: [vp] } },
        ...(mode === "direct_post.jwt"
          ? {
              jarm: {
                encryption: { nonce: "wallet-generated-nonce" },
                serverMetadata: {
                  authorization_signing_alg_values_supported: [],
                  authorization_encryption_alg_values_supported: ["ECDH-ES"],
                  authorization_encryption_enc_values_supported: ["A256GCM", "A128GCM"],
                },
              },
            }
          : {}),
      });
      if (mode === "direct_post.jwt") expect(response.jarm?.responseJwt.split(".")).toHaveLength(5);
      const submitted = await wallet.submitOpenid4vpAuthorizationResponse({
        authorizationRequestPayload: request as unknown as { response_uri: string },
        authorizationResponsePayload: response.authorizationResponsePayload,
        ...(response.jarm ? { jarm: { responseJwt: response.jarm.responseJwt } } : {}),
      });
      expect(submitted.response.status).toBe(200);
      expect(await submitted.response.json()).toEqual({
        redirect_uri: `https://rentals.example/done?session_id=${created.session_id}`,
      });

      const requestPath = new URL(decodeURIComponent(created.authorization_request.split("request_uri=")[1]!)).pathname;
      expect(walletRequests).toEqual([
        `${requestUriMethod === "post" ? "POST" : "GET"} ${requestPath}`,
        "POST /v1/verifier/presentation",
      ]);

      const result = await fetch(`${baseUrl}/v1/verifier/result/${created.session_id}`, {
        headers: { "x-api-key": API_KEYS.verifier },
      });
      const body = (await result.json()) as {
        presentation_metadata: { claims: Record<string, unknown> };
        check_results: Array<{ status: string }>;
      };
      expect(body).toMatchObject({
        session_id: created.session_id,
        status: "completed",
        presentation_metadata: {
          claims: { given_name: "Ada", family_name: "Lovelace" },
          credential_metadata: [{ issuer: issuer.iss, credential_type: [PID_VCT] }],
        },
      });
      expect(body.presentation_metadata.claims).not.toHaveProperty("birthdate");
      expect(body.check_results.every((c) => c.status !== "failed")).toBe(true);
    });
  }
});
