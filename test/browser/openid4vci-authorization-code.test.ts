import { createHash, randomBytes } from "node:crypto";
import { createAccessTokenVerifier, generateP256Jwk } from "@attesto/protocol";
import {
  type CallbackContext,
  clientAuthenticationClientAttestationJwt,
  HashAlgorithm,
  type SignJwtCallback,
} from "@openid4vc/oauth2";
import { Openid4vciClient } from "@openid4vc/openid4vci";
import { setGlobalConfig } from "@openid4vc/utils";
import { calculateJwkThumbprint, type JWK, SignJWT } from "jose";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoClientAttestation } from "../../services/auth-server/src/demo-wallet-provider.js";
import { launchChromium, screenshot } from "./support/chromium.js";
import { type IssuanceSide, startIssuerDouble } from "./support/issuance-side.js";
import {
  type ListeningAuthServer,
  startListeningAuthServer,
  startWalletCallback,
  type WalletCallback,
} from "./support/servers.js";

/**
 * Interop: the OpenWallet Foundation wallet client (@openid4vc/openid4vci 0.4.6 `Openid4vciClient`)
 * runs the authorization-code flow against the auth server on a real port: credential offer ->
 * issuer and AS metadata -> PAR with PKCE (S256), client attestation (demo wallet provider) and a
 * DPoP key (nonce dance) -> the consent page in headless Chromium, Approve -> the authorization
 * response (`iss` checked) -> the code exchange with DPoP and attestation. The credential issuer is
 * a double (offers, metadata, GrantService); the credential request runs when the issuance side
 * can issue (the real issuer, in integration).
 */
setGlobalConfig({ allowInsecureUrls: true });

const HASHES: Record<HashAlgorithm, string> = {
  [HashAlgorithm.Sha256]: "sha256",
  [HashAlgorithm.Sha384]: "sha384",
  [HashAlgorithm.Sha512]: "sha512",
};

const publicPart = (jwk: JWK): JWK => ({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y });

/** A wallet's callbacks: its keys sign by public key, traffic is recorded. */
function walletCallbacks(keys: JWK[], clientAttestationJwt: string, traffic: string[]) {
  const privateKeyOf = (publicJwk: { x?: string }) => {
    const key = keys.find((candidate) => candidate.x === publicJwk.x);
    if (!key) throw new Error("the wallet holds no such key");
    return key;
  };
  const signJwt: SignJwtCallback = async (signer, { header, payload }) => {
    if (signer.method !== "jwk") throw new Error(`unsupported signer ${signer.method}`);
    const jwt = await new SignJWT(payload as Record<string, unknown>)
      .setProtectedHeader(header as { alg: string })
      .sign(privateKeyOf(signer.publicJwk));
    return { jwt, signerJwk: signer.publicJwk };
  };
  const base = {
    hash: (data: Uint8Array, alg: HashAlgorithm) => createHash(HASHES[alg]).update(data).digest(),
    generateRandom: (length: number) => randomBytes(length),
    signJwt,
  };
  const recordingFetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const response = await fetch(input, init);
    traffic.push(`${init?.method ?? "GET"} ${url.pathname} ${response.status}`);
    return response;
  };
  return {
    ...base,
    clientAuthentication: clientAuthenticationClientAttestationJwt({ clientAttestationJwt, callbacks: base }),
    fetch: recordingFetch,
  } satisfies Omit<CallbackContext, "verifyJwt" | "decryptJwe" | "encryptJwe">;
}

describe("interop: Openid4vciClient authorization-code flow (PAR + PKCE + attestation + browser + DPoP)", () => {
  let browser: Browser;
  let server: ListeningAuthServer;
  let issuer: IssuanceSide;
  let callback: WalletCallback;

  beforeAll(async () => {
    browser = await launchChromium();
    issuer = await startIssuerDouble();
    // Access tokens are for the double's credential issuer identifiers.
    server = await startListeningAuthServer({ env: { CREDENTIAL_ISSUER_URL: issuer.url }, issuerDisplay: "http" });
    issuer.connect(server);
    callback = await startWalletCallback();
  });
  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await issuer?.close();
    await server?.close();
  });

  it("obtains a DPoP-bound access token for exactly the offered configuration", async () => {
    const clientId = "owf-wallet-instance";
    const instanceKey = generateP256Jwk() as JWK;
    const dpopKey = generateP256Jwk() as JWK;
    const clientAttestationJwt = await createDemoClientAttestation({ clientId, instancePublicJwk: instanceKey });
    const traffic: string[] = [];
    const client = new Openid4vciClient({
      callbacks: walletCallbacks([instanceKey, dpopKey], clientAttestationJwt, traffic),
    });

    // Offer and metadata, as a wallet resolves them.
    const { deepLink } = await issuer.createAuthorizationCodeOffer("diploma_v1");
    const credentialOffer = await client.resolveCredentialOffer(deepLink);
    const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    const authorizationServerMetadata = issuerMetadata.authorizationServers[0]!;
    expect(authorizationServerMetadata.issuer).toBe(server.url);

    // PAR with PKCE, client attestation and a DPoP key.
    const dpopSigner = { method: "jwk" as const, alg: "ES256", publicJwk: publicPart(dpopKey) as never };
    traffic.length = 0;
    const authorization = await client.initiateAuthorization({
      credentialOffer,
      issuerMetadata,
      clientId,
      redirectUri: callback.redirectUri,
      scope: "diploma_v1",
      dpop: { signer: dpopSigner },
    });
    expect(traffic).toEqual(["POST /v1/par 400", "POST /v1/par 201"]); // the DPoP nonce dance
    if (authorization.authorizationFlow !== "Oauth2Redirect") throw new Error("expected a browser redirect flow");
    expect(authorization.pkce?.codeChallengeMethod).toBe("S256");
    const parDpop = (authorization as { dpop?: { nonce?: string } }).dpop;

    // The person approves in the browser.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorization.authorizationRequestUrl);
    // Names from the issuer's metadata, read over HTTP by the auth server.
    await expect(page.locator("#issuer-name").textContent()).resolves.toBe("ACME University");
    await expect(page.getByRole("heading", { level: 2 }).textContent()).resolves.toBe("University Diploma");
    await screenshot(page, "interop-owf-consent");
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(callback.redirectUri)),
      page.getByRole("button", { name: "Approve" }).click(),
    ]);
    const redirectUrl = page.url();
    await context.close();

    const authorizationResponse = client.parseAndVerifyAuthorizationResponseRedirectUrl({
      url: redirectUrl,
      authorizationServerMetadata,
    });
    expect(authorizationResponse.iss).toBe(server.url);
    expect(authorizationResponse.code).toEqual(expect.any(String));

    // The code exchange with DPoP (the nonce from the PAR response) and the client attestation.
    traffic.length = 0;
    const { accessTokenResponse, dpop } = await client.retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      authorizationCode: authorizationResponse.code!,
      pkceCodeVerifier: authorization.pkce!.codeVerifier,
      redirectUri: callback.redirectUri,
      additionalRequestPayload: { client_id: clientId },
      dpop: { signer: dpopSigner, ...(parDpop?.nonce ? { nonce: parDpop.nonce } : {}) },
    });
    expect(traffic).toEqual(["POST /v1/token 200"]);
    expect(accessTokenResponse).toMatchObject({ token_type: "DPoP", expires_in: 3600 });
    expect(dpop?.nonce).toEqual(expect.any(String));

    const claims = await createAccessTokenVerifier({
      jwks: new URL(`${server.url}/.well-known/jwks.json`),
      issuer: server.url,
    }).verify(accessTokenResponse.access_token, { audience: `${issuer.url}/${issuer.tenant}` });
    expect(claims).toMatchObject({
      credentialConfigurationIds: ["diploma_v1"],
      clientId,
      dpopRequired: true,
      jkt: await calculateJwkThumbprint(publicPart(dpopKey)),
    });

    // The credential request: when the issuance side is the real credential issuer.
    if (issuer.requestCredential) {
      const credential = await issuer.requestCredential({
        accessToken: accessTokenResponse.access_token,
        credentialConfigurationId: "diploma_v1",
      });
      expect(credential.split("~").length).toBeGreaterThan(1);
    }
  });
});
