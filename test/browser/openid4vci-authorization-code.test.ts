import { Oauth2ClientErrorResponseError } from "@openid4vc/oauth2";
import {
  type CredentialOfferObject,
  type IssuerMetadataResult,
  Openid4vciRetrieveCredentialsError,
} from "@openid4vc/openid4vci";
import { decodeJwt } from "jose";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { decodeSdJwt, validateX5c, verifySdJwtVc } from "../interop/support/sd-jwt.js";
import { applyTenant, DIPLOMA_CLAIMS, type Tenant } from "../interop/support/tenant.js";
import { AttestedWallet } from "./support/attested-wallet.js";
import { createAuthorizationCodeOffer } from "./support/authorization-code-offer.js";
import { launchChromium, screenshot } from "./support/chromium.js";
import { startWalletCallback, type WalletCallback } from "./support/servers.js";

/**
 * Interop, the "done when": the OpenWallet Foundation wallet client
 * (@openid4vc/openid4vci 0.4.6 `Openid4vciClient`) obtains an SD-JWT VC from the REAL platform
 * (every service started by the all-in-one launcher's startPlatform, real HTTP, real database)
 * through the authorization-code flow: a tenant applied via the public API, an offer from
 * `POST /v1/offers` (`flow: authorization-code`), offer and metadata resolution, PAR with PKCE S256,
 * a client attestation (demo wallet provider) and a DPoP key (nonce dance), the consent page in
 * headless Debian Chromium (Approve), the authorization response (`iss` checked), the code exchange
 * with DPoP and a fresh attestation PoP, the nonce endpoint, a key proof, the credential request
 * with DPoP. The credential is verified with third-party code only (@sd-jwt/sd-jwt-vc,
 * @peculiar/x509 to the platform's trust anchor). Then a replayed code: refused at the token
 * endpoint, and the token it issued is refused at the credential endpoint.
 */

/** Ports 31581..31588 / 32581..32588: see test/interop/support/platform.ts for the offsets in use. */
const PORT_OFFSET = 23_500;
const CONFIGURATION_ID = "university-diploma";

describe("interop: Openid4vciClient authorization-code flow on the platform (PAR + PKCE + attestation + browser + DPoP)", () => {
  let browser: Browser;
  let platform: InteropPlatform;
  let tenant: Tenant;
  let callback: WalletCallback;

  beforeAll(async () => {
    browser = await launchChromium();
    platform = await startInteropPlatform({ portOffset: PORT_OFFSET, label: "browser_authcode" });
    tenant = await applyTenant(platform, "browser-issuer");
    callback = await startWalletCallback();
  });
  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await platform?.close();
  });

  const issuerIdentifier = () => `${platform.url("credential-issuer")}/${tenant.tenant}`;

  interface Authorized {
    credentialOffer: CredentialOfferObject;
    issuerMetadata: IssuerMetadataResult;
    code: string;
    codeVerifier: string;
    dpopSigner: ReturnType<typeof AttestedWallet.signerOf>;
    /** The latest DPoP-Nonce the authorization server handed out (PAR response). */
    dpopNonce: string | undefined;
  }

  /** Offer -> metadata -> PAR (PKCE, attestation, DPoP) -> consent page in Chromium, Approve -> code. */
  async function authorize(wallet: AttestedWallet, screenshotName?: string): Promise<Authorized> {
    const offer = await createAuthorizationCodeOffer(platform, tenant);
    const credentialOffer = await wallet.client.resolveCredentialOffer(offer.deep_link);
    expect(credentialOffer).toMatchObject({
      credential_issuer: issuerIdentifier(),
      credential_configuration_ids: [CONFIGURATION_ID],
      grants: { authorization_code: { issuer_state: expect.stringMatching(/^[0-9a-f-]{36}$/) } },
    });
    const issuerMetadata = await wallet.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    expect(issuerMetadata.authorizationServers.map((server) => server.issuer)).toEqual([platform.url("auth-server")]);

    const dpopSigner = AttestedWallet.signerOf(wallet.key());
    const scope = issuerMetadata.credentialIssuer.credential_configurations_supported[CONFIGURATION_ID]?.scope;
    wallet.requests.length = 0;
    const authorization = await wallet.client.initiateAuthorization({
      credentialOffer,
      issuerMetadata,
      clientId: wallet.clientId,
      redirectUri: callback.redirectUri,
      ...(scope ? { scope } : {}),
      dpop: { signer: dpopSigner },
    });
    if (authorization.authorizationFlow !== "Oauth2Redirect") throw new Error("expected a browser redirect flow");
    // PAR with the DPoP nonce dance (400 use_dpop_nonce, then 201).
    expect(wallet.requests).toEqual([
      { method: "POST", path: "/v1/par", status: 400 },
      { method: "POST", path: "/v1/par", status: 201 },
    ]);
    expect(authorization.pkce?.codeChallengeMethod).toBe("S256");
    const parDpop = (authorization as { dpop?: { nonce?: string } }).dpop;

    // The person approves in the browser.
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(authorization.authorizationRequestUrl);
      // Names the auth server read from the real issuer's metadata: the tenant, the credential type.
      await expect(page.locator("#issuer-name").textContent()).resolves.toBe("Interop browser-issuer");
      await expect(page.getByRole("heading", { level: 2 }).textContent()).resolves.toBe("University Diploma");
      if (screenshotName) await screenshot(page, screenshotName);
      await Promise.all([
        page.waitForURL((url) => url.href.startsWith(callback.redirectUri)),
        page.getByRole("button", { name: "Approve" }).click(),
      ]);
      if (screenshotName) await screenshot(page, `${screenshotName}-back-in-wallet`);
      const response = wallet.client.parseAndVerifyAuthorizationResponseRedirectUrl({
        url: page.url(),
        authorizationServerMetadata: issuerMetadata.authorizationServers[0]!,
      });
      expect(response.iss).toBe(platform.url("auth-server"));
      if (!response.code) throw new Error(`no code in the authorization response: ${page.url()}`);
      return {
        credentialOffer,
        issuerMetadata,
        code: response.code,
        codeVerifier: authorization.pkce!.codeVerifier,
        dpopSigner,
        dpopNonce: parDpop?.nonce,
      };
    } finally {
      await context.close();
    }
  }

  /** The code exchange as the library makes it: DPoP proof (with the last nonce) and a fresh attestation PoP. */
  const exchangeCode = (wallet: AttestedWallet, authorized: Authorized) =>
    wallet.client.retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer: authorized.credentialOffer,
      issuerMetadata: authorized.issuerMetadata,
      authorizationCode: authorized.code,
      pkceCodeVerifier: authorized.codeVerifier,
      redirectUri: callback.redirectUri,
      additionalRequestPayload: { client_id: wallet.clientId },
      dpop: { signer: authorized.dpopSigner, ...(authorized.dpopNonce ? { nonce: authorized.dpopNonce } : {}) },
    });

  /** Nonce endpoint, key proof, credential request with DPoP (the library does the issuer's nonce retry). */
  async function requestCredential(
    wallet: AttestedWallet,
    authorized: Authorized,
    token: Awaited<ReturnType<typeof exchangeCode>>,
  ) {
    const holder = wallet.key();
    const { c_nonce } = await wallet.client.requestNonce({ issuerMetadata: authorized.issuerMetadata });
    const { jwt } = await wallet.client.createCredentialRequestJwtProof({
      issuerMetadata: authorized.issuerMetadata,
      credentialConfigurationId: CONFIGURATION_ID,
      signer: AttestedWallet.signerOf(holder),
      nonce: c_nonce,
    });
    const result = await wallet.client.retrieveCredentials({
      issuerMetadata: authorized.issuerMetadata,
      accessToken: token.accessTokenResponse.access_token,
      credentialConfigurationId: CONFIGURATION_ID,
      proofs: { jwt: [jwt] },
      dpop: { signer: authorized.dpopSigner, ...(token.dpop?.nonce ? { nonce: token.dpop.nonce } : {}) },
    });
    return { holder, result };
  }

  it("issues an SD-JWT VC bound to the wallet's key, verifiable against the platform's trust anchor", async () => {
    const wallet = await AttestedWallet.create("owf-wallet-instance");
    const authorized = await authorize(wallet, "interop-owf-platform-consent");

    // The token endpoint requires the client attestation again (the PAR was attested): without it
    // 401 invalid_client, and the code stays usable.
    const unauthenticated = await fetch(`${platform.url("auth-server")}/v1/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: authorized.code,
        code_verifier: authorized.codeVerifier,
        redirect_uri: callback.redirectUri,
        client_id: wallet.clientId,
      }),
    });
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toMatchObject({ error: "invalid_client" });

    const token = await exchangeCode(wallet, authorized);
    expect(token.accessTokenResponse).toMatchObject({ token_type: "DPoP", expires_in: 3600 });
    expect(decodeJwt(token.accessTokenResponse.access_token)).toMatchObject({
      iss: platform.url("auth-server"),
      aud: issuerIdentifier(),
      client_id: wallet.clientId,
      credential_configuration_ids: [CONFIGURATION_ID],
      dpop_required: true,
      revocable: true,
      cnf: { jkt: expect.any(String) },
    });

    wallet.requests.length = 0;
    const { holder, result } = await requestCredential(wallet, authorized, token);
    // The library's own nonce retry at the credential endpoint (RFC 9449 §9: 401 use_dpop_nonce).
    expect(wallet.requests).toEqual([
      { method: "POST", path: "/v1/nonce", status: 200 },
      { method: "POST", path: "/credential", status: 401 },
      { method: "POST", path: "/credential", status: 200 },
    ]);
    const credentials = result.credentialResponse.credentials as Array<{ credential: string }>;
    expect(credentials).toHaveLength(1);
    const credential = credentials[0]!.credential;

    // Independent verification: x5c chain to the platform's anchor, signature, disclosures, vct, cnf.
    const decoded = decodeSdJwt(credential);
    expect(decoded.header).toMatchObject({ typ: "dc+sd-jwt", alg: "ES256" });
    const vct = (
      authorized.issuerMetadata.credentialIssuer.credential_configurations_supported[CONFIGURATION_ID] as {
        vct?: string;
      }
    ).vct;
    expect(vct).toEqual(expect.stringContaining("/schemas/"));
    const chain = await validateX5c(decoded.header.x5c as string[], await platform.trustAnchors());
    const verified = await verifySdJwtVc(credential, chain.leafKey);
    expect(verified.payload).toMatchObject({ iss: issuerIdentifier(), vct, cnf: { jwk: holder.publicJwk } });
    expect(verified.claims).toMatchObject(DIPLOMA_CLAIMS);
  });

  it("refuses a replayed code, and the credential endpoint then refuses the token the code issued", async () => {
    const wallet = await AttestedWallet.create("owf-wallet-replayed");
    const authorized = await authorize(wallet);
    const token = await exchangeCode(wallet, authorized);

    const replay = await exchangeCode(wallet, { ...authorized, dpopNonce: token.dpop?.nonce }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(replay).toBeInstanceOf(Oauth2ClientErrorResponseError);
    const { response, errorResponse } = replay as Oauth2ClientErrorResponseError;
    expect({ status: response.status, error: errorResponse.error }).toEqual({ status: 400, error: "invalid_grant" });

    const refused = await requestCredential(wallet, authorized, token).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(Openid4vciRetrieveCredentialsError);
    const failure = (refused as Openid4vciRetrieveCredentialsError).response;
    expect({
      status: failure.response.status,
      body: failure.credentialErrorResponseResult?.data,
      challenge: failure.response.headers.get("www-authenticate"),
    }).toEqual({
      status: 401,
      body: { error: "invalid_token", error_description: "access token has been revoked" },
      challenge: expect.stringMatching(/^DPoP error="invalid_token"/),
    });
  });
});
