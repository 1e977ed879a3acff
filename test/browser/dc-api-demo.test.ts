import { createHash, randomBytes, X509Certificate } from "node:crypto";
import type { CallbackContext, JweEncryptor, Jwk, JwtSigner } from "@openid4vc/oauth2";
import { Openid4vpClient } from "@openid4vc/openid4vp";
import { CompactEncrypt, compactVerify, importJWK, importX509, type JWK } from "jose";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WalletKey } from "../interop/support/keys.js";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { presentSdJwtVc } from "../interop/support/sd-jwt.js";
import { applyTenant, createOffer, type Tenant } from "../interop/support/tenant.js";
import { holdCredential } from "../interop/support/wallet.js";
import { collectCspViolations, launchChromium, screenshot } from "./support/chromium.js";

/**
 * The "done when" for the Digital Credentials API: a real Chromium loads the verifier's
 * demo page (GET /v1/verifier/dc-api/demo, which imports dc-api.js); `navigator.credentials.get`
 * is answered by the OpenWallet Foundation wallet (@openid4vc/openid4vp `Openid4vpClient`) from the
 * page's own request and origin, holding a credential the platform issued to it; the session ends
 * `completed` for dc_api.jwt (encrypted) and dc_api, unsigned, and for a dc_api.jwt request signed
 * (`openid4vp-v1-signed`) by the tenant's verifier certificate under an `x509_hash` client id with
 * the page's origin in `expected_origins`: the wallet checks the x5c chain to the platform root it
 * trusts, the leaf hash and the origin.
 */

/** Ports 18391..18398 / 19391..19398: see test/interop/support/platform.ts for the offsets in use. */
const PORT_OFFSET = 10_310;
const TEST_TIMEOUT_MS = 120_000;

const der = (base64: string) => Buffer.from(base64, "base64");
const pemOf = (base64: string) => `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----`;

/** The wallet's trust store for verifier certificates: the platform root, as a phone wallet would install it. */
let trustedVerifierRoots: X509Certificate[] = [];

/** x5c (leaf first, no root) -> each certificate valid now and signed by the next, the last by a trusted root. */
function chainsToTrustedRoot(x5c: string[]): boolean {
  const chain = x5c.map((entry) => new X509Certificate(der(entry)));
  const now = Date.now();
  if (chain.some((c) => new Date(c.validFrom).getTime() > now || new Date(c.validTo).getTime() <= now)) return false;
  for (let i = 0; i + 1 < chain.length; i++) {
    const [child, parent] = [chain[i] as X509Certificate, chain[i + 1] as X509Certificate];
    if (!child.checkIssued(parent) || !child.verify(parent.publicKey)) return false;
  }
  const top = chain.at(-1) as X509Certificate;
  return trustedVerifierRoots.some((root) => top.checkIssued(root) && top.verify(root.publicKey));
}

const callbacks: Omit<CallbackContext, "generateRandom" | "clientAuthentication" | "verifyJwt"> & {
  verifyJwt: CallbackContext["verifyJwt"];
} = {
  hash: (data, alg) => new Uint8Array(createHash(alg.replace("-", "").toLowerCase()).update(data).digest()),
  /** A signed request: ES256 by the x5c leaf, whose chain leads to a trusted root; nothing else verifies. */
  async verifyJwt(signer: JwtSigner, jwt: { compact: string }) {
    if (signer.method !== "x5c" || !chainsToTrustedRoot(signer.x5c)) return { verified: false as const };
    try {
      const leaf = signer.x5c[0] as string;
      await compactVerify(jwt.compact, await importX509(pemOf(leaf), "ES256"), { algorithms: ["ES256"] });
      const signerJwk = new X509Certificate(der(leaf)).publicKey.export({ format: "jwk" }) as JWK as Jwk;
      return { verified: true as const, signerJwk };
    } catch {
      return { verified: false as const };
    }
  },
  getX509CertificateMetadata: (certificate: string) => {
    const names = (new X509Certificate(der(certificate)).subjectAltName ?? "").split(", ");
    return {
      sanDnsNames: names.filter((name) => name.startsWith("DNS:")).map((name) => name.slice(4)),
      sanUriNames: names.filter((name) => name.startsWith("URI:")).map((name) => name.slice(4)),
    };
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

/** What the wallet saw of each request: its protocol and, when signed, the verified client. */
interface Asked {
  origin: string;
  protocol: string;
  client?: { prefix: string; effective?: string };
}

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
    trustedVerifierRoots = (await platform.trustAnchors()).map((anchor) => new X509Certificate(der(anchor)));
    ({ credential, holder, vct } = await holdCredential((await createOffer(platform, tenant)).deep_link));
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  /** The OWF wallet answering one DC API request for a page of `origin`: what the browser hands back as `data`. */
  async function walletAnswer(
    request: { protocol: string; data: Record<string, unknown> },
    origin: string,
    asked: Asked[],
  ) {
    const wallet = new Openid4vpClient({ callbacks: callbacks as never });
    const parsed = wallet.parseOpenid4vpAuthorizationRequest({ authorizationRequest: request.data });
    // A signed request is a JAR (its `request` JWS) carried over the DC API.
    expect(parsed.type).toBe(request.protocol === "openid4vp-v1-signed" ? "jar" : "openid4vp_dc_api");
    const resolved = await wallet.resolveOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: parsed.params as never,
      origin,
    });
    asked.push({ origin, protocol: request.protocol, client: resolved.client });
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

  const cases = [
    { mode: "dc_api.jwt", signer: "unsigned", protocol: "openid4vp-v1-unsigned" },
    { mode: "dc_api", signer: "unsigned", protocol: "openid4vp-v1-unsigned" },
    { mode: "dc_api.jwt", signer: "x509_hash", protocol: "openid4vp-v1-signed" },
  ] as const;
  for (const { mode, signer, protocol } of cases) {
    it(
      `${mode}, ${signer}: the page's own request, answered by the wallet, ends completed`,
      async () => {
        const context = await browser.newContext();
        try {
          const page = await context.newPage();
          const csp = collectCspViolations(page);
          const asked: Asked[] = [];
          const walletErrors: string[] = [];
          await page.exposeFunction("attestoTestWallet", async (request: never, origin: string) =>
            walletAnswer(request, origin, asked).catch((error: unknown) => {
              walletErrors.push(String(error));
              throw error;
            }),
          );
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
          await page.locator("#signer").selectOption(signer);
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
          await screenshot(page, `dc-api-demo-${mode}-${signer}`);
          expect(walletErrors).toEqual([]);
          const checks = await page.locator("#checks").textContent();
          expect(checks).not.toMatch(/failed/);
          expect(await page.locator("#status").textContent(), checks ?? "").toBe("completed");
          const origin = new URL(platform.url("verifier")).origin;
          expect(asked).toEqual([
            signer === "unsigned"
              ? {
                  origin,
                  protocol,
                  client: expect.objectContaining({ prefix: "origin", effective: `origin:${origin}` }),
                }
              : { origin, protocol, client: expect.objectContaining({ prefix: "x509_hash" }) },
          ]);
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
