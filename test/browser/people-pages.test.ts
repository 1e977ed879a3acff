import { randomBytes } from "node:crypto";
import { issuerConfigurationV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { testCredentialSigner } from "@attesto/runtime/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { DIPLOMA_CLAIMS, type Tenant } from "../interop/support/tenant.js";
import { AttestedWallet } from "./support/attested-wallet.js";
import { createAuthorizationCodeOffer } from "./support/authorization-code-offer.js";
import { collectCspViolations, launchChromium, screenshot } from "./support/chromium.js";
import { readQrCode } from "./support/read-qr.js";
import { startWalletCallback, type WalletCallback } from "./support/servers.js";

/**
 * The pages people see, on the REAL platform, in Chromium (light and dark, phone and desktop): the
 * tenant landing page lists exactly the types the tenant's issuer configuration offers, by display
 * name, and a live offer's QR code (read back from the screenshot); the consent page lists exactly
 * the offered claims with their labels, nested ones grouped. Neither shows a claim value, both
 * escape the tenant's name, and neither causes a CSP violation. What is visible is checked, not pixels.
 */

/** Ports 20591..20598 / 21591..21598. */
const PORT_OFFSET = 12_510;

const TEST_TIMEOUT_MS = 120_000;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1100, height: 900 };
/** A name with markup and quotes: it must show as text. */
const TENANT_NAME = `Ada & <b>Lovelace</b> "College"`;
const DISPLAY_NAME = "Lovelace College Diploma";
/** Claim values of the offer: none may appear on either page. */
const VALUES = ["Master of Science in Mathematics", "University of London", "1843-09-01", "1815-12-10"];

describe("browser: the landing and consent pages people see", () => {
  let browser: Browser;
  let platform: InteropPlatform;
  let tenant: Tenant;
  let callback: WalletCallback;

  beforeAll(async () => {
    browser = await launchChromium();
    platform = await startInteropPlatform({ portOffset: PORT_OFFSET, label: "browser_people" });
    callback = await startWalletCallback();
    const id = `people-${randomBytes(4).toString("hex")}`;
    const password = `People-${randomBytes(6).toString("hex")}1A`;
    const applied = await fetch(`${platform.url("trust-registry")}/v1/apply`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: TENANT_NAME, password, tenant: id, is_issuer: true, is_verifier: false }),
    });
    expect(applied.status).toBe(201);
    const body = (await applied.json()) as { uuid: string; api_key: string };
    tenant = { tenant: id, uuid: body.uuid, password, apiKey: body.api_key };
    // The tenant offers one of the seeded types, under its own display name.
    const operator = createRpcClient(issuerConfigurationV1.IssuerService, {
      baseUrl: platform.internalUrl("credential-issuer"),
      audience: "credential-issuer",
      signer: testCredentialSigner("operator"),
      timeoutMs: 5_000,
    });
    await operator.applyIssuerConfiguration({
      configuration: {
        tenant: id,
        issuerName: `people/${id}`,
        credentialConfigurations: [{ id: "university-diploma", display: [{ name: DISPLAY_NAME, locale: "en-US" }] }],
        signingMode: issuerConfigurationV1.SigningMode.X509,
        defaultOfferTtlSeconds: 1800,
      },
    });
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await platform?.close();
  });

  async function withPage<T>(
    options: { colorScheme: "light" | "dark"; phone: boolean },
    use: (page: Page) => Promise<T>,
  ): Promise<T> {
    const context = await browser.newContext({
      viewport: options.phone ? PHONE : DESKTOP,
      colorScheme: options.colorScheme,
      isMobile: options.phone,
      hasTouch: options.phone,
    });
    try {
      const page = await context.newPage();
      const violations = collectCspViolations(page);
      const result = await use(page);
      expect(violations).toEqual([]);
      return result;
    } finally {
      await context.close();
    }
  }

  /** What a page shows must hold no claim value and the tenant's name only as text. */
  async function expectNoValuesAndEscapedName(page: Page) {
    const text = (await page.locator("body").textContent()) ?? "";
    for (const value of VALUES) expect(text).not.toContain(value);
    expect(await page.locator("b").count()).toBe(0);
  }

  /** The page's background colour: light and dark differ (prefers-color-scheme). */
  const backgroundOf = (page: Page) => page.evaluate<string>("getComputedStyle(document.body).backgroundColor");

  for (const colorScheme of ["light", "dark"] as const) {
    for (const phone of [true, false]) {
      const label = `${colorScheme}-${phone ? "phone" : "desktop"}`;
      it(
        `landing page (${label}): exactly the offered types by display name, and the live offer's QR code`,
        async () => {
          const offer = await createAuthorizationCodeOffer(platform, tenant);
          await withPage({ colorScheme, phone }, async (page) => {
            const url = `${platform.url("credential-issuer")}/${tenant.tenant}?offer=${offer.offer_id}`;
            const response = await page.goto(url);
            expect(response?.status()).toBe(200);
            await expect(page.locator("#tenant-name").textContent()).resolves.toBe(TENANT_NAME);
            const types = await page
              .locator("#types > li")
              .evaluateAll((items) =>
                items.map((item) => [item.getAttribute("data-id"), item.querySelector("strong")?.textContent]),
              );
            expect(types).toEqual([["university-diploma", DISPLAY_NAME]]);
            await expect(page.locator("#offer-title").textContent()).resolves.toBe(DISPLAY_NAME);
            await expect(page.locator("#open").getAttribute("href")).resolves.toBe(offer.deep_link);
            await page.locator("#qr").scrollIntoViewIfNeeded();
            expect(readQrCode(await page.locator("#qr").screenshot())).toBe(offer.deep_link);
            await expectNoValuesAndEscapedName(page);
            expect(await backgroundOf(page)).toBe(colorScheme === "dark" ? "rgb(13, 17, 23)" : "rgb(246, 248, 250)");
            if (phone) {
              // Full width on a phone: the card has no margin around it.
              const box = await page.locator("main").boundingBox();
              expect(box?.x).toBe(0);
              expect(box?.width).toBe(PHONE.width);
            }
            await screenshot(page, `landing-${label}`);
          });
        },
        TEST_TIMEOUT_MS,
      );
    }
  }

  it("landing page: no offer section without ?offer=, and 'no longer available' for one that is not live here", async () => {
    await withPage({ colorScheme: "light", phone: true }, async (page) => {
      await page.goto(`${platform.url("credential-issuer")}/${tenant.tenant}`);
      expect(await page.locator("#offer, #offer-unavailable").count()).toBe(0);
      for (const offer of ["00000000-0000-4000-8000-000000000000", "not-an-offer"]) {
        await page.goto(`${platform.url("credential-issuer")}/${tenant.tenant}?offer=${offer}`);
        await expect(page.locator("#offer-unavailable").textContent()).resolves.toContain("no longer available");
        expect(await page.locator("#qr").count()).toBe(0);
      }
      await screenshot(page, "landing-offer-unavailable");
    });
  });

  for (const colorScheme of ["light", "dark"] as const) {
    it(
      `consent page (${colorScheme}, phone): exactly the offered claims, labelled, nested ones grouped`,
      async () => {
        // The type has more claims (field of study, grade, ...); the offer carries these.
        const { birth_date: _left, ...claims } = DIPLOMA_CLAIMS;
        const offer = await createAuthorizationCodeOffer(platform, tenant, claims);
        const wallet = await AttestedWallet.create(`people-wallet-${colorScheme}`);
        const credentialOffer = await wallet.client.resolveCredentialOffer(offer.deep_link);
        const issuerMetadata = await wallet.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
        const authorization = await wallet.client.initiateAuthorization({
          credentialOffer,
          issuerMetadata,
          clientId: wallet.clientId,
          redirectUri: callback.redirectUri,
          scope: "university-diploma",
          dpop: { signer: AttestedWallet.signerOf(wallet.key()) },
        });
        if (authorization.authorizationFlow !== "Oauth2Redirect") throw new Error("expected a browser redirect flow");

        await withPage({ colorScheme, phone: true }, async (page) => {
          const response = await page.goto(authorization.authorizationRequestUrl);
          expect(response?.status()).toBe(200);
          await expect(page.locator("#issuer-name").textContent()).resolves.toBe(TENANT_NAME);
          await expect(page.getByRole("heading", { level: 2 }).textContent()).resolves.toBe(DISPLAY_NAME);
          const top = await page
            .locator(".credential > ul > li")
            .evaluateAll((items) => items.map((item) => item.firstChild?.textContent));
          expect(top).toEqual(["Given name", "Family name", "Degree", "Institution", "Awarded on"]);
          const groupOf = (name: string) =>
            page
              .locator(".group")
              .filter({ has: page.locator(".group-label", { hasText: name }) })
              .locator("li");
          await expect(groupOf("Degree").allTextContents()).resolves.toEqual(["Degree type", "Degree title"]);
          await expect(groupOf("Institution").allTextContents()).resolves.toHaveLength(2);
          const text = (await page.locator("main").textContent()) ?? "";
          for (const notOffered of ["Field of study", "Final grade", "Date of birth", "Birth date"]) {
            expect(text).not.toContain(notOffered);
          }
          await expectNoValuesAndEscapedName(page);
          expect(await backgroundOf(page)).toBe(colorScheme === "dark" ? "rgb(13, 17, 23)" : "rgb(246, 248, 250)");
          await screenshot(page, `consent-${colorScheme}-phone`);
        });
      },
      TEST_TIMEOUT_MS,
    );
  }
});
