import { createHash, randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createAccessTokenVerifier, generateEd25519Jwk, generateP256Jwk } from "@attesto/protocol";
import {
  type CallbackContext,
  clientAuthenticationAnonymous,
  HashAlgorithm,
  Oauth2Client,
  Oauth2ClientErrorResponseError,
  type SignJwtCallback,
} from "@openid4vc/oauth2";
import { setGlobalConfig } from "@openid4vc/utils";
import { calculateJwkThumbprint, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_URL, ISSUER_URL, startTestAuthServer, type TestAuthServer } from "./support/test-auth-server.js";

/**
 * The OpenWallet Foundation OAuth 2.0 client (@openid4vc/oauth2 0.4.6), as a wallet uses it,
 * against the auth server listening on a real port. The server's public URL stays
 * http://localhost:8081 (as behind an ingress); the client's fetch reaches the real port, so
 * the metadata, the `issuer` check and every DPoP `htu` use the public URL, not the bind address.
 */
setGlobalConfig({ allowInsecureUrls: true });

const HASHES: Record<HashAlgorithm, string> = {
  [HashAlgorithm.Sha256]: "sha256",
  [HashAlgorithm.Sha384]: "sha384",
  [HashAlgorithm.Sha512]: "sha512",
};

function walletCallbacks(privateJwk: JWK, fetchImpl: typeof fetch) {
  const signJwt: SignJwtCallback = async (signer, { header, payload }) => {
    if (signer.method !== "jwk") throw new Error(`unsupported signer ${signer.method}`);
    const jwt = await new SignJWT(payload as Record<string, unknown>)
      .setProtectedHeader(header as { alg: string })
      .sign(privateJwk);
    return { jwt, signerJwk: signer.publicJwk };
  };
  return {
    hash: (data, alg) => createHash(HASHES[alg]).update(data).digest(),
    generateRandom: (length) => randomBytes(length),
    signJwt,
    clientAuthentication: clientAuthenticationAnonymous(),
    fetch: fetchImpl,
  } satisfies Omit<CallbackContext, "verifyJwt" | "decryptJwe" | "encryptJwe">;
}

const publicPart = (jwk: JWK): JWK =>
  jwk.kty === "EC" ? { kty: "EC", crv: jwk.crv, x: jwk.x, y: jwk.y } : { kty: "OKP", crv: jwk.crv, x: jwk.x };

describe("interop: @openid4vc/oauth2 Oauth2Client against the running auth server", () => {
  let server: TestAuthServer;
  let listenUrl: string;
  /** Paths the client requested, in order, with the status it got. */
  const traffic: Array<{ method: string; path: string; status: number }> = [];

  /** The wallet's fetch: public URL -> the real listener, recording each exchange. */
  const walletFetch: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input).replace(AUTH_URL, listenUrl);
    const response = await fetch(url, init);
    traffic.push({ method: init?.method ?? "GET", path: new URL(url).pathname, status: response.status });
    return response;
  };

  beforeAll(async () => {
    server = await startTestAuthServer();
    await server.app.listen({ port: 0, host: "127.0.0.1" });
    listenUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  async function verifyAccessToken(token: string, tenant = "acme") {
    // The credential issuer's way: the AS key set fetched from its jwks_uri.
    const verifier = createAccessTokenVerifier({
      jwks: new URL(`${listenUrl}/.well-known/jwks.json`),
      issuer: AUTH_URL,
    });
    return verifier.verify(token, { audience: `${ISSUER_URL}/${tenant}` });
  }

  it("discovers the metadata at <issuer>/.well-known/oauth-authorization-server", async () => {
    const client = new Oauth2Client({ callbacks: walletCallbacks(generateP256Jwk(), walletFetch) });
    const metadata = await client.fetchAuthorizationServerMetadata(AUTH_URL);
    expect(metadata).toMatchObject({
      issuer: AUTH_URL,
      token_endpoint: `${AUTH_URL}/v1/token`,
      "pre-authorized_grant_anonymous_access_supported": true,
    });
    expect(client.isDpopSupported({ authorizationServerMetadata: metadata! })).toEqual({
      supported: true,
      dpopSigningAlgValuesSupported: ["ES256", "EdDSA"],
    });
  });

  it("retrieves a DPoP-bound pre-authorized access token, retrying on use_dpop_nonce (ES256)", async () => {
    server.grants.addOffer("interop-code-1", { offerId: "offer-interop-1", dpopRequired: true }, { txCode: "493536" });
    const key = generateP256Jwk();
    const client = new Oauth2Client({ callbacks: walletCallbacks(key, walletFetch) });
    const authorizationServerMetadata = (await client.fetchAuthorizationServerMetadata(AUTH_URL))!;
    traffic.length = 0;

    const { accessTokenResponse, dpop } = await client.retrievePreAuthorizedCodeAccessToken({
      authorizationServerMetadata,
      preAuthorizedCode: "interop-code-1",
      txCode: "493536",
      resource: `${ISSUER_URL}/acme`,
      dpop: { signer: { method: "jwk", alg: "ES256", publicJwk: publicPart(key) as never } },
    });

    expect(traffic).toEqual([
      { method: "POST", path: "/v1/token", status: 400 },
      { method: "POST", path: "/v1/token", status: 200 },
    ]);
    expect(accessTokenResponse).toStrictEqual({
      access_token: expect.any(String),
      token_type: "DPoP",
      expires_in: 3600,
    });
    // The client keeps the fresh nonce of the token response for its next proof.
    expect(server.deps.dpopNonces.verify(dpop!.nonce!)).toBe(true);
    const claims = await verifyAccessToken(accessTokenResponse.access_token);
    expect(claims).toMatchObject({ offerId: "offer-interop-1", dpopRequired: true, tenant: "acme" });
    expect(claims.jkt).toBe(await calculateJwkThumbprint(publicPart(key)));
  });

  it("retrieves a DPoP-bound token with an EdDSA key", async () => {
    server.grants.addOffer("interop-code-2", { offerId: "offer-interop-2" });
    const key = generateEd25519Jwk() as JWK;
    const client = new Oauth2Client({ callbacks: walletCallbacks(key, walletFetch) });
    const authorizationServerMetadata = (await client.fetchAuthorizationServerMetadata(AUTH_URL))!;
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessToken({
      authorizationServerMetadata,
      preAuthorizedCode: "interop-code-2",
      dpop: { signer: { method: "jwk", alg: "EdDSA", publicJwk: publicPart(key) as never } },
    });
    expect(accessTokenResponse.token_type).toBe("DPoP");
    expect((await verifyAccessToken(accessTokenResponse.access_token)).jkt).toBe(
      await calculateJwkThumbprint(publicPart(key)),
    );
  });

  it("retrieves a Bearer token without DPoP, and gets invalid_grant when redeeming the code again", async () => {
    server.grants.addOffer("interop-code-3", { offerId: "offer-interop-3", tenant: "globex" });
    const client = new Oauth2Client({ callbacks: walletCallbacks(generateP256Jwk(), walletFetch) });
    const authorizationServerMetadata = (await client.fetchAuthorizationServerMetadata(AUTH_URL))!;
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessToken({
      authorizationServerMetadata,
      preAuthorizedCode: "interop-code-3",
    });
    expect(accessTokenResponse.token_type).toBe("Bearer");
    expect(await verifyAccessToken(accessTokenResponse.access_token, "globex")).not.toHaveProperty("jkt");

    const again = await client
      .retrievePreAuthorizedCodeAccessToken({ authorizationServerMetadata, preAuthorizedCode: "interop-code-3" })
      .catch((error: unknown) => error);
    expect(again).toBeInstanceOf(Oauth2ClientErrorResponseError);
    expect((again as Oauth2ClientErrorResponseError).errorResponse).toMatchObject({ error: "invalid_grant" });
  });
});
