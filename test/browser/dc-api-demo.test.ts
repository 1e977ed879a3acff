import { createHash, randomBytes } from "node:crypto";
import type { CallbackContext, JweEncryptor } from "@openid4vc/oauth2";
import { Openid4vpClient } from "@openid4vc/openid4vp";
import { CompactEncrypt, importJWK, type JWK } from "jose";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WalletKey } from "../interop/support/keys.js";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { presentSdJwtVc } from "../interop/support/sd-jwt.js";
import { applyTenant, createOffer, type Tenant } from "../interop/support/tenant.js";
import { InteropWallet, receiveCredential } from "../interop/support/wallet.js";
import { collectCspViolations, launchChromium, screenshot } from "./support/chromium.js";

/**
 * The "done when" for the Digital Credentials API: a real Chromium loads the verifier's
 * demo page (GET /v1/verifier/dc-api/demo, which imports dc-api.js); `navigator.credentials.get`
 * is answered by the OpenWallet Foundation wallet (@openid4vc/openid4vp `Openid4vpClient`) from the
 * page's own request and origin, holding a credential the platform issued to it; the session ends
 * `completed` for dc_api.jwt (encrypted) and dc_api.
 */

/** Ports 18391..18398 / 19391..19398: see test/interop/support/platform.ts for the offsets in use. */
const PORT_OFFSET = 10_310;
const TEST_TIMEOUT_MS = 120_000;

const callbacks: Omit<CallbackContext, "generateRandom" | "clientAuthentication" | "verifyJwt"> & {
  verifyJwt: CallbackContext["verifyJwt"];
} = {
  hash: (data, alg) => new Uint8Array(createHash(alg.replace("-", "").toLowerCase()).update(data).digest()),
  async verifyJwt() {
    return { verified: false as const };
  },
  async signJwt(): Promise<never> {
    throw new Error("the wallet signs nothing here but its KB-JWT");
  },
  async encryptJwe(encryptor: JweEncryptor, data: string) {
    const publicJwk = encryptor.publicJwk as JWK;
    const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
      .setProtectedHeader({ alg: encryptor.alg, enc: encryptor.enc, ...(publicJwk.kid ? { kid: publicJwk.kid } : {}) })
      .encrypt(await importJWK(publicJwk, encryptor.alg));
    return { jwe, encryptionJwk: encryptor.publicJwk };
  },
  async decryptJwe(): Promise<never> {
    throw new Error("the wallet decrypts nothing");
  },
  fetch: ((input: string | URL | Request, init?: RequestInit) => fetch(input, init)) as CallbackContext["fetch"],
};

describe("Digital Credentials API: the demo page in Chromium, answered by the OWF wallet", () => {
  let browser: Browser;
  let platform: InteropPlatform;
  let tenant: Tenant;
  let credential: string;
  let holder: WalletKey;
  let vct: string;

  beforeAll(async () => {
    browser = await launchChromium();
    platform = await startInteropPlatform({ portOffset: PORT_OFFSET, label: "browser_dc_api" });
    tenant = await applyTenant(platform, "dc-api");
    const wallet = new InteropWallet();
    holder = wallet.key("ES256");
    const offer = await createOffer(platform, tenant);
    const received = await receiveCredential(wallet, offer.deep_link, {
      dpop: true,
      proofKey: holder,
      proofKeyReference: "jwk",
    });
    credential = received.credential;
    vct = (
      received.issuerMetadata.credentialIssuer.credential_configurations_supported[
        received.credentialConfigurationId
      ] as unknown as {
        vct: string;
      }
    ).vct;
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  /** The OWF wallet answering one DC API request for a page of `origin`: what the browser hands back as `data`. */
  async function walletAnswer(request: { protocol: string; data: Record<string, unknown> }, origin: string) {
    const wallet = new Openid4vpClient({ callbacks });
    const parsed = wallet.parseOpenid4vpAuthorizationRequest({ authorizationRequest: request.data });
    expect(parsed.type).toBe("openid4vp_dc_api");
    const resolved = await wallet.resolveOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: parsed.params as never,
      origin,
    });
    const payload = resolved.authorizationRequestPayload as Record<string, unknown> & {
      nonce: string;
      response_mode: string;
    };
    const vp = await presentSdJwtVc(credential, { given_name: true }, holder, {
      // The key-binding audience: the client_id, or origin:<origin> for an unsigned request.
      aud: typeof payload.client_id === "string" ? payload.client_id : `origin:${origin}`,
      nonce: payload.nonce,
    });
    const response = await wallet.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: resolved.authorizationRequestPayload,
      origin,
      authorizationResponsePayload: { vp_token: { credential: [vp] } },
      ...(payload.response_mode === "dc_api.jwt"
        ? {
            jarm: {
              encryption: { nonce: randomBytes(16).toString("base64url") },
              serverMetadata: {
                authorization_signing_alg_values_supported: [],
                authorization_encryption_alg_values_supported: ["ECDH-ES"],
                authorization_encryption_enc_values_supported: ["A256GCM", "A128GCM"],
              },
            },
          }
        : {}),
    });
    return response.jarm ? { response: response.jarm.responseJwt } : response.authorizationResponsePayload;
  }

  for (const mode of ["dc_api.jwt", "dc_api"] as const) {
    it(
      `${mode}: the page's own request, answered by the wallet, ends completed`,
      async () => {
        const context = await browser.newContext();
        try {
          const page = await context.newPage();
          const csp = collectCspViolations(page);
          const asked: string[] = [];
          await page.exposeFunction("attestoTestWallet", async (request: never, origin: string) => {
            asked.push(origin);
            return walletAnswer(request, origin);
          });
          // The browser's Digital Credentials API, answered by the OWF wallet (no real wallet UI in headless Chromium).
          await page.addInitScript(`
            window.DigitalCredential = class {};
            Object.defineProperty(navigator, "credentials", {
              configurable: true,
              value: {
                async get(options) {
                  const requests = options.digital.requests;
                  if (requests.length !== 1) throw new Error("expected exactly one request");
                  return { protocol: requests[0].protocol, data: await window.attestoTestWallet(requests[0], location.origin) };
                },
              },
            });
          `);
          await page.goto(`${platform.url("verifier")}/v1/verifier/dc-api/demo`);
          await expect(page.locator("#support").textContent()).resolves.toMatch(/supports/);
          await page.locator("#api-key").fill(tenant.apiKey);
          await page.locator("#mode").selectOption(mode);
          await page.locator("#dcql").fill(
            JSON.stringify({
              credentials: [
                {
                  id: "credential",
                  format: "dc+sd-jwt",
                  meta: { vct_values: [vct] },
                  claims: [{ path: ["given_name"] }],
                },
              ],
            }),
          );
          await page.getByRole("button", { name: "Ask for the credential" }).click();
          await page
            .locator('#status[data-status="completed"], #status[data-status="failed"], #status[data-status="error"]')
            .waitFor();
          await screenshot(page, `dc-api-demo-${mode}`);
          expect(await page.locator("#checks").textContent()).not.toMatch(/failed/);
          await expect(page.locator("#status").textContent()).resolves.toBe("completed");
          expect(asked).toEqual([new URL(platform.url("verifier")).origin]);
          const sessionId = await page.locator("#session").textContent();
          const result = (await (
            await fetch(`${platform.url("verifier")}/v1/verifier/result/${sessionId}`, {
              headers: { "x-api-key": tenant.apiKey },
            })
          ).json()) as { status: string; presentation_metadata: { claims: Record<string, unknown> } };
          expect(result.status).toBe("completed");
          expect(result.presentation_metadata.claims).toMatchObject({ given_name: expect.any(String) });
          expect(csp).toEqual([]);
        } finally {
          await context.close();
        }
      },
      TEST_TIMEOUT_MS,
    );
  }
});
