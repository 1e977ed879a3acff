import { randomBytes } from "node:crypto";
import { decodeJwt } from "jose";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { didKeyOf, walletKey } from "../interop/support/keys.js";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { applyTenant, createOffer, type Tenant } from "../interop/support/tenant.js";
import { InteropWallet, receiveCredential } from "../interop/support/wallet.js";
import { collectCspViolations, launchChromium, screenshot } from "./support/chromium.js";
import { readQrCode } from "./support/read-qr.js";

/**
 * The QR codes and public pages of offers (`POST /v1/offers`) and authorization requests
 * (`POST /v1/verifier/authorization-request`) on the REAL platform: Chromium loads `page_url` (phone
 * size, light and dark) and `qr_code_url`, and an independent decoder (jsQR over pngjs) reads each
 * screenshot back to exactly the link the API answered. The pages follow the live status.
 */

/** Ports 18381..18388 / 19381..19388: see test/interop/support/platform.ts for the offsets in use. */
const PORT_OFFSET = 10_300;

const TEST_TIMEOUT_MS = 120_000;

const PHONE = { width: 390, height: 844 };

describe("QR codes and link pages, read back from Chromium screenshots", () => {
  let browser: Browser;
  let platform: InteropPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    browser = await launchChromium();
    platform = await startInteropPlatform({ portOffset: PORT_OFFSET, label: "browser_qr" });
    tenant = await applyTenant(platform, "qr");
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  async function withPage<T>(
    colorScheme: "light" | "dark",
    use: (page: Page, csp: string[]) => Promise<T>,
  ): Promise<T> {
    const context = await browser.newContext({ viewport: PHONE, colorScheme, isMobile: true, hasTouch: true });
    try {
      const page = await context.newPage();
      return await use(page, collectCspViolations(page));
    } finally {
      await context.close();
    }
  }

  /**
   * The QR code on screen, decoded from a screenshot of what Chromium rendered (the viewport: a
   * full-page capture of a bare SVG document, which has no page height, never ends).
   */
  const qrOf = async (page: Page) => readQrCode(await page.screenshot());

  async function createRequest() {
    const rp = walletKey("EdDSA");
    const response = await fetch(`${platform.url("verifier")}/v1/verifier/authorization-request`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
      body: JSON.stringify({
        dcql_query: { credentials: [{ id: "diploma", format: "dc+sd-jwt", meta: { vct_values: ["urn:x"] } }] },
        verifier_private_key: rp.privateKey.export({ format: "jwk" }).d,
        verifier_client_id: didKeyOf(rp),
      }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as {
      session_id: string;
      request_uri: string;
      authorization_request: string;
      qr_code_url: string;
      page_url: string;
    };
  }

  it(
    "an offer's page (phone, dark): its QR code reads back to deep_link, the button opens it, the status follows the wallet",
    async () => {
      const offer = await createOffer(platform, tenant);
      const { qr_code_url, page_url } = offer as unknown as { qr_code_url: string; page_url: string };
      expect(page_url).toBe(`${platform.url("credential-issuer")}/v1/offers/${offer.offer_id}/page`);
      await withPage("dark", async (page, csp) => {
        const response = await page.goto(page_url);
        expect(response?.status()).toBe(200);
        await screenshot(page, "qr-offer-page-dark");
        expect(await qrOf(page)).toBe(offer.deep_link);
        expect(await page.locator("#open").getAttribute("href")).toBe(offer.deep_link);
        await expect(page.locator("#status").textContent()).resolves.toBe("Waiting for your wallet");
        // The OWF wallet takes the offer: the page, polling, says so and drops the QR code.
        const wallet = new InteropWallet();
        await receiveCredential(wallet, offer.deep_link, {
          dpop: true,
          proofKey: wallet.key("ES256"),
          proofKeyReference: "jwk",
        });
        await page.locator('#status[data-status="redeemed"]').waitFor();
        await expect(page.locator("#qr").isHidden()).resolves.toBe(true);
        await screenshot(page, "qr-offer-page-redeemed");
        expect(csp).toEqual([]);
      });
      await withPage("light", async (page) => {
        // The SVG endpoint itself, rendered by Chromium.
        const response = await page.goto(qr_code_url);
        expect(response?.headers()["content-type"]).toBe("image/svg+xml; charset=utf-8");
        expect(await qrOf(page)).toBe(offer.deep_link);
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a request's page (phone, light): its QR code and the SVG read back to authorization_request; the status ends failed",
    async () => {
      const created = await createRequest();
      await withPage("light", async (page, csp) => {
        await page.goto(created.page_url);
        await screenshot(page, "qr-request-page-light");
        expect(await qrOf(page)).toBe(created.authorization_request);
        expect(await page.locator("#open").getAttribute("href")).toBe(created.authorization_request);
        const body = await page.locator("body").textContent();
        expect(body).not.toContain(created.session_id);
        // A wallet answers with garbage: the page shows the outcome, never the check results.
        const requestObject = decodeJwt(await (await fetch(created.request_uri)).text()) as { state: string };
        const posted = await fetch(`${platform.url("verifier")}/v1/verifier/presentation`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ state: requestObject.state, vp_token: randomBytes(8).toString("hex") }),
        });
        expect(posted.status).toBe(200);
        await page.locator('#status[data-status="failed"]').waitFor();
        await expect(page.locator("#status").textContent()).resolves.toBe("Verification failed");
        expect(csp).toEqual([]);
      });
      await withPage("dark", async (page) => {
        await page.goto(created.qr_code_url);
        expect(await qrOf(page)).toBe(created.authorization_request);
      });
    },
    TEST_TIMEOUT_MS,
  );
});
