import { createPkce } from "@attesto/protocol";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  attestationHeaders,
  createTestWallet,
  offerAuthorizationCode,
  pushAuthorizationRequest,
  type TestWallet,
} from "../../services/auth-server/test/support/authorization-code-flow.js";
import { form } from "../../services/auth-server/test/support/test-auth-server.js";
import { collectCspViolations, launchChromium, screenshot } from "./support/chromium.js";
import {
  type ListeningAuthServer,
  startListeningAuthServer,
  startWalletCallback,
  type WalletCallback,
} from "./support/servers.js";

/**
 * The authorization server's HTML pages in headless Chromium (Debian package, playwright-core):
 * the consent page with Approve and Deny, the error pages, and end_session. The auth server listens
 * on a real port with the GrantService double; the wallet's redirect_uri is a small local server.
 */
describe("browser: authorization pages", () => {
  let browser: Browser;
  let server: ListeningAuthServer;
  let callback: WalletCallback;
  let context: BrowserContext;
  let page: Page;
  let cspViolations: string[];
  let wallet: TestWallet;

  beforeAll(async () => {
    browser = await launchChromium();
    server = await startListeningAuthServer({
      env: { POST_LOGOUT_REDIRECT_URIS: "" },
    });
    callback = await startWalletCallback();
    wallet = createTestWallet("demo-wallet");
  });
  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await server?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 800, height: 900 } });
    page = await context.newPage();
    cspViolations = collectCspViolations(page);
  });
  afterEach(async () => {
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  /** PAR for a fresh offer; the URL that opens the consent page. */
  async function authorizationUrl(overrides: Record<string, string> = {}) {
    const pkce = createPkce();
    const { issuerState } = offerAuthorizationCode(server, { credentialConfigurationIds: ["diploma_v1"] });
    const requestUri = await pushAuthorizationRequest(server, wallet, pkce, {
      issuer_state: issuerState,
      redirect_uri: callback.redirectUri,
      state: "browser-state",
      ...overrides,
    });
    const query = new URLSearchParams({ client_id: wallet.clientId, request_uri: requestUri });
    return { url: `${server.url}/v1/authorize?${query}`, pkce, requestUri };
  }

  const waitForCallback = () => page.waitForURL((url) => url.href.startsWith(callback.redirectUri));

  it("Approve: the consent page shows issuer, credential and claims; the wallet gets a code it can redeem", async () => {
    const { url, pkce } = await authorizationUrl();
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe("Add a credential to your wallet");
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(
      "Add a credential to your wallet",
    );
    await expect(page.locator("#issuer-name").textContent()).resolves.toBe("ACME University");
    await expect(page.getByRole("heading", { level: 2 }).textContent()).resolves.toBe("University Diploma");
    const claims = page.locator(".credential > ul > li");
    expect(await claims.evaluateAll((items) => items.map((item) => item.firstChild?.textContent))).toEqual([
      "Given name",
      "Family name",
      "Degree",
    ]);
    await expect(page.locator(".group", { hasText: "Degree" }).locator("li").allTextContents()).resolves.toEqual([
      "Degree type",
      "Degree title",
    ]);
    const cookies = await context.cookies();
    expect(cookies).toEqual([
      expect.objectContaining({ name: "attesto_as_session", httpOnly: true, sameSite: "Lax", secure: false }),
    ]);
    await screenshot(page, "consent-page");

    await Promise.all([waitForCallback(), page.getByRole("button", { name: "Approve" }).click()]);
    const arrived = new URL(page.url());
    expect(Object.fromEntries(arrived.searchParams)).toStrictEqual({
      code: expect.any(String),
      state: "browser-state",
      iss: server.url,
    });
    await screenshot(page, "approved-back-in-wallet");

    // The wallet exchanges the code.
    const token = await fetch(`${server.url}/v1/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(await attestationHeaders(wallet, { audience: server.url })),
      },
      body: form({
        grant_type: "authorization_code",
        code: arrived.searchParams.get("code")!,
        code_verifier: pkce.codeVerifier,
        redirect_uri: callback.redirectUri,
        client_id: wallet.clientId,
      }),
    });
    expect(token.status).toBe(200);
    expect(await token.json()).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
  });

  it("Deny: the wallet gets error=access_denied with state and iss", async () => {
    const { url } = await authorizationUrl();
    await page.goto(url);
    await Promise.all([waitForCallback(), page.getByRole("button", { name: "Deny" }).click()]);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toStrictEqual({
      error: "access_denied",
      state: "browser-state",
      iss: server.url,
    });
    await screenshot(page, "denied-back-in-wallet");
  });

  it("error page: a request_uri used twice (also after going back), never a redirect", async () => {
    const { url } = await authorizationUrl();
    await page.goto(url);
    const again = await page.goto(url);
    expect(again?.status()).toBe(400);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(
      "Authorization request already used",
    );
    await expect(page.getByRole("alert").textContent()).resolves.toContain("Start again from your wallet");
    expect(page.url().startsWith(server.url)).toBe(true);
    await screenshot(page, "error-request-uri-used");
  });

  it("error page: an expired request_uri", async () => {
    const { url } = await authorizationUrl();
    server.clock.advance(61);
    try {
      const response = await page.goto(url);
      expect(response?.status()).toBe(400);
      await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(
        "Authorization request expired",
      );
      await screenshot(page, "error-request-uri-expired");
    } finally {
      server.clock.advance(-61);
    }
  });

  it("error page: an unknown client", async () => {
    const { requestUri } = await authorizationUrl();
    const query = new URLSearchParams({ client_id: "another-wallet", request_uri: requestUri });
    const response = await page.goto(`${server.url}/v1/authorize?${query}`);
    expect(response?.status()).toBe(400);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Unknown client");
    await screenshot(page, "error-unknown-client");
  });

  it("error page: a tampered form (CSRF) is refused with 403", async () => {
    const { url } = await authorizationUrl({ state: "browser-state-csrf" });
    await page.goto(url);
    await page.locator('input[name="csrf_token"]').evaluate((input) => {
      (input as { value: string }).value = "forged-token-forged-token-forged-token-abc";
    });
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/v1/authorize/submit")),
      page.getByRole("button", { name: "Approve" }).click(),
    ]);
    expect(response.status()).toBe(403);
    await page.waitForLoadState();
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("The form could not be verified");
    expect(callback.received.filter((u) => u.searchParams.get("state") === "browser-state-csrf")).toEqual([]);
    await screenshot(page, "error-csrf");
  });

  it("end_session signs the browser out: the cookie is gone and an open consent page is refused", async () => {
    const { url } = await authorizationUrl();
    await page.goto(url);
    const other = await context.newPage();
    const signedOut = await other.goto(`${server.url}/end_session`);
    expect(signedOut?.status()).toBe(200);
    await expect(other.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("You are signed out");
    await screenshot(other, "signed-out");
    expect(await context.cookies()).toEqual([]);

    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/v1/authorize/submit")),
      page.getByRole("button", { name: "Approve" }).click(),
    ]);
    expect(response.status()).toBe(403);
    await page.waitForLoadState();
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Your session has ended");
    await screenshot(page, "error-session-ended");
  });
});
