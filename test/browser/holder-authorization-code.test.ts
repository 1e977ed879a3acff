import { didKeyFromPublicJwk, ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { applyTenant, type Tenant } from "../interop/support/tenant.js";
import { createAuthorizationCodeOffer } from "./support/authorization-code-offer.js";
import { launchChromium, screenshot } from "./support/chromium.js";

/**
 * The holder (custodial wallet) receives a credential through the authorization code flow, on the
 * REAL platform (all-in-one startPlatform with the holder), with the user's consent given in
 * headless Chromium: `POST /v1/oid4vci/authorize` (PAR with PKCE S256, the holder's own client
 * attestation, a DPoP-bound code), the consent page, the redirect back to the holder's
 * `/v1/oid4vci/callback`, which redeems the code with DPoP and the attestation, requests the
 * credential with a key proof and stores it. The wallet entry names the issuer's credential id and
 * offer id, which lead to the issuer's admin record. Hostile: a replayed callback, a state that
 * names no flow, a mix-up `iss`, a code delivered to another user's flow, a denial.
 */

/** Ports 18681..18688 / 19681..19688. */
const PORT_OFFSET = 10_600;

interface HolderUser {
  headers: Record<string, string>;
  did: string;
  privateKey: string;
}

interface Started {
  flow_id: string;
  authorization_url: string;
  expires_at: string;
}

describe("holder: authorization code flow in the browser (PAR + PKCE + own attestation + consent + DPoP)", () => {
  let browser: Browser;
  let platform: InteropPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    browser = await launchChromium();
    platform = await startInteropPlatform({
      portOffset: PORT_OFFSET,
      label: "holder_authcode",
      alsoStart: ["holder", "scheduler"],
    });
    tenant = await applyTenant(platform, "holder-authcode");
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  const holderUrl = () => platform.url("holder");
  const callbackUrl = () => `${holderUrl()}/v1/oid4vci/callback`;

  async function newUser(): Promise<HolderUser> {
    const password = "correct horse battery";
    const registered = await fetch(`${holderUrl()}/v1/user/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password }),
    });
    expect(registered.status).toBe(201);
    const { uuid } = (await registered.json()) as { uuid: string };
    const login = await fetch(`${holderUrl()}/v1/user/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ uuid, password }),
    });
    const { access_token } = (await login.json()) as { access_token: string };
    const key = generateEd25519Jwk();
    return {
      headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
      did: didKeyFromPublicJwk(ed25519PublicJwk(key)),
      privateKey: key.d,
    };
  }

  const holderGet = async (user: HolderUser, path: string) => {
    const response = await fetch(`${holderUrl()}${path}`, { headers: user.headers });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  async function start(user: HolderUser): Promise<{ started: Started; offerId: string }> {
    const offer = await createAuthorizationCodeOffer(platform, tenant);
    const response = await fetch(`${holderUrl()}/v1/oid4vci/authorize`, {
      method: "POST",
      headers: user.headers,
      body: JSON.stringify({
        credential_offer_uri: offer.deep_link,
        holder_did: user.did,
        private_key: user.privateKey,
        notarize_on_ledger: false,
      }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(201);
    const started = JSON.parse(text) as Started;
    expect(started.authorization_url.startsWith(`${platform.url("auth-server")}/v1/authorize?`)).toBe(true);
    return { started, offerId: offer.offer_id };
  }

  /** Opens the consent page in a fresh browser context and clicks `decision`; the page ends where the browser was sent. */
  async function decide(
    authorizationUrl: string,
    decision: "Approve" | "Deny",
    options: { intercept?: boolean; screenshotName?: string } = {},
  ): Promise<{ context: BrowserContext; page: Page; callback: string }> {
    const context = await browser.newContext();
    let intercepted = "";
    if (options.intercept) {
      // The authorization response is caught before it reaches the holder (a test may deliver it as
      // it likes): the form submission is made here and its redirect read, not followed.
      await context.route(`${platform.url("auth-server")}/v1/authorize/submit`, async (route) => {
        const answer = await route.fetch({ maxRedirects: 0 });
        intercepted = answer.headers().location ?? "";
        await route.fulfill({ status: 200, contentType: "text/plain", body: "intercepted" });
      });
    }
    const page = await context.newPage();
    await page.goto(authorizationUrl);
    await expect(page.locator("#issuer-name").textContent()).resolves.toBe("Interop holder-authcode");
    if (options.screenshotName) await screenshot(page, options.screenshotName);
    await Promise.all([
      options.intercept
        ? page.waitForURL((url) => url.pathname === "/v1/authorize/submit")
        : page.waitForURL((url) => url.href.startsWith(callbackUrl())),
      page.getByRole("button", { name: decision }).click(),
    ]);
    if (options.intercept) expect(intercepted.startsWith(`${callbackUrl()}?`)).toBe(true);
    return { context, page, callback: intercepted || page.url() };
  }

  it("receives the credential through the browser, and the wallet entry leads to the issuer's record", async () => {
    const user = await newUser();
    const { started, offerId } = await start(user);
    expect(await holderGet(user, `/v1/oid4vci/authorize/${started.flow_id}`)).toMatchObject({
      status: 200,
      body: { status: "pending", credential_id: null, credential_configuration_id: "university-diploma" },
    });

    const { context, page, callback } = await decide(started.authorization_url, "Approve", {
      screenshotName: "holder-authorization-code-consent",
    });
    try {
      await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Credential received");
      await screenshot(page, "holder-authorization-code-received");
      const credentialId = await page.locator("#credential-id").textContent();
      expect(new URL(callback).searchParams.get("iss")).toBe(platform.url("auth-server"));

      const flow = await holderGet(user, `/v1/oid4vci/authorize/${started.flow_id}`);
      expect(flow.body).toMatchObject({ status: "completed", credential_id: credentialId, error: null });

      const detail = await holderGet(user, `/v1/vc/${credentialId}`);
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({
        id: credentialId,
        holder_did: user.did,
        issuer_offer_id: offerId,
        issuer_credential_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        claims: { given_name: expect.any(String) },
      });
      await expect(page.locator("#issuer-credential-id").textContent()).resolves.toBe(detail.body.issuer_credential_id);

      // The issuer's admin record of the very credential, reached from the wallet entry.
      const record = await fetch(
        `${platform.url("credential-issuer")}/v1/credentials/${detail.body.issuer_credential_id}`,
        {
          method: "PATCH",
          headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
          body: JSON.stringify({ status: "suspended" }),
        },
      );
      expect(record.status, await record.clone().text()).toBe(200);
      expect(await record.json()).toMatchObject({
        id: detail.body.issuer_credential_id,
        offer_id: offerId,
        status: "suspended",
      });

      // Replayed callback (a reload, or someone who saw the URL): refused, nothing stored twice.
      const replay = await page.goto(callback);
      expect(replay?.status()).toBe(400);
      await expect(page.locator("#reason").textContent()).resolves.toBe("this authorization response was already used");
      const list = await holderGet(user, "/v1/vc");
      expect((list.body.credentials as unknown[]).length).toBe(1);
    } finally {
      await context.close();
    }
  });

  it("refuses a state that names no flow and a mix-up iss, without issuing anything", async () => {
    const user = await newUser();
    const { started } = await start(user);
    const { context, callback } = await decide(started.authorization_url, "Approve", { intercept: true });
    await context.close();
    const response = new URL(callback);
    expect(response.searchParams.get("code")).toBeTruthy();

    const deliver = async (change: (url: URL) => void) => {
      const url = new URL(response.href);
      change(url);
      const answer = await fetch(url);
      return { status: answer.status, text: await answer.text(), headers: answer.headers };
    };
    // A state that is not the flow's: no flow is touched (the real one stays pending).
    const wrongState = await deliver((url) => url.searchParams.set("state", "not-the-state-of-any-flow"));
    expect(wrongState.status).toBe(400);
    expect(wrongState.text).toContain("the authorization response names no authorization flow of this wallet");
    expect(wrongState.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(wrongState.text).not.toContain("not-the-state-of-any-flow");
    const noState = await deliver((url) => url.searchParams.delete("state"));
    expect(noState.text).toContain("the authorization response has no state");
    expect((await holderGet(user, `/v1/oid4vci/authorize/${started.flow_id}`)).body).toMatchObject({
      status: "pending",
    });

    // RFC 9207: an iss that is not the authorization server the request went to ends the flow.
    const mixUp = await deliver((url) => url.searchParams.set("iss", "https://attacker.example"));
    expect(mixUp.status).toBe(400);
    expect(mixUp.text).toContain("the authorization response comes from another authorization server (iss)");
    expect((await holderGet(user, `/v1/oid4vci/authorize/${started.flow_id}`)).body).toMatchObject({
      status: "failed",
      error: "issuance_failed",
      credential_id: null,
    });
    // The genuine response after that: the flow is over.
    const late = await deliver(() => {});
    expect(late.text).toContain("this authorization response was already used");
    expect((await holderGet(user, "/v1/vc")).body.credentials).toEqual([]);
  });

  it("refuses a code delivered to another user's flow (PKCE and DPoP bind it to its own flow)", async () => {
    const alice = await newUser();
    const mallory = await newUser();
    const aliceFlow = await start(alice);
    const malloryFlow = await start(mallory);
    const alices = await decide(aliceFlow.started.authorization_url, "Approve", { intercept: true });
    await alices.context.close();
    const mallorys = await decide(malloryFlow.started.authorization_url, "Approve", { intercept: true });
    await mallorys.context.close();

    // Alice's code with Mallory's state: Mallory's flow cannot redeem it.
    const swapped = new URL(mallorys.callback);
    swapped.searchParams.set("code", new URL(alices.callback).searchParams.get("code")!);
    const refused = await fetch(swapped);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("Credential not received");
    expect((await holderGet(mallory, `/v1/oid4vci/authorize/${malloryFlow.started.flow_id}`)).body).toMatchObject({
      status: "failed",
      credential_id: null,
    });
    expect((await holderGet(mallory, "/v1/vc")).body.credentials).toEqual([]);

    // Alice's own response still works: the refused exchange did not burn her code.
    const genuine = await fetch(alices.callback);
    expect(genuine.status).toBe(200);
    expect((await holderGet(alice, `/v1/oid4vci/authorize/${aliceFlow.started.flow_id}`)).body).toMatchObject({
      status: "completed",
    });
    expect((await holderGet(alice, "/v1/vc")).body.credentials).toHaveLength(1);
    // And a flow is only its owner's to read.
    expect((await holderGet(mallory, `/v1/oid4vci/authorize/${aliceFlow.started.flow_id}`)).status).toBe(404);
  });

  it("records a denial: the browser lands on the holder's page, the flow fails with the reason", async () => {
    const user = await newUser();
    const { started } = await start(user);
    const { context, page } = await decide(started.authorization_url, "Deny");
    try {
      await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Credential not received");
      await expect(page.locator("#reason").textContent()).resolves.toBe(
        "the authorization server answered access_denied",
      );
    } finally {
      await context.close();
    }
    expect((await holderGet(user, `/v1/oid4vci/authorize/${started.flow_id}`)).body).toMatchObject({
      status: "failed",
      error: "authorization_denied",
    });
  });
});
