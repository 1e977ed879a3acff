import { createHash, randomUUID } from "node:crypto";
import { createPkce } from "@attesto/protocol";
import { Code, ConnectError } from "@connectrpc/connect";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestWallet,
  getAuthorize,
  offerAuthorizationCode,
  openConsent,
  pushAuthorizationRequest,
  REDIRECT_URI,
  REQUEST_URI_PREFIX,
  redirectParameters,
  submitConsent,
  type TestWallet,
} from "./support/authorization-code-flow.js";
import { AUTH_URL, startTestAuthServer, type TestAuthServer } from "./support/test-auth-server.js";

/** A server-rendered page: status, HTML, no caching, a strict CSP, never a redirect. */
function expectPage(response: LightMyRequestResponse, status: number, heading: string): string {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
  expect(response.headers["cache-control"]).toBe("no-store");
  expect(response.headers.location).toBeUndefined();
  const csp = response.headers["content-security-policy"] as string;
  expect(csp).toMatch(
    /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; form-action [^;]+; frame-ancestors 'none'; base-uri 'none'$/,
  );
  expect(response.body).toContain(`<h1`);
  expect(response.body).toContain(heading);
  expect(response.body).not.toMatch(/<script|src=|href="http/);
  return response.body;
}

describe("GET /v1/authorize: the consent page", () => {
  let server: TestAuthServer;
  let wallet: TestWallet;
  beforeAll(async () => {
    server = await startTestAuthServer();
    wallet = createTestWallet("wallet-consent");
  });
  afterAll(() => server.close());

  async function pushed(overrides: Record<string, string | undefined> = {}, offer = {}) {
    const { issuerState } = offerAuthorizationCode(server, offer);
    return pushAuthorizationRequest(server, wallet, createPkce(), { issuer_state: issuerState, ...overrides });
  }

  it("shows the tenant's display name, the credential, its claims, Approve and Deny, with a session cookie", async () => {
    const requestUri = await pushed();
    const response = await getAuthorize(server.app, { client_id: wallet.clientId, request_uri: requestUri });
    const html = expectPage(response, 200, "Add a credential to your wallet");
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<strong id="issuer-name">ACME University</strong>');
    expect(html).toContain("University Diploma");
    expect(html).toContain("A degree awarded by ACME University");
    // The offer's claims only (not the type's Graduation date), labelled, the nested ones grouped.
    expect(html).toContain(
      '<ul><li>Given name</li><li>Family name</li><li class="group"><span class="group-label">Degree</span><ul><li>Degree type</li><li>Degree title</li></ul></li></ul>',
    );
    expect(html).not.toContain("Graduation date");
    expect(html).toContain("<code>wallet-consent</code>");
    expect(html).toContain('<form method="post" action="/v1/authorize/submit"');
    expect(html).toMatch(/<input type="hidden" name="request_id" value="[0-9a-f-]{36}">/);
    expect(html).toMatch(/<input type="hidden" name="csrf_token" value="[A-Za-z0-9_-]{43}">/);
    expect(html).toContain('<button type="submit" class="primary" name="decision" value="approve">Approve</button>');
    expect(html).toContain('<button type="submit" name="decision" value="deny">Deny</button>');
    expect(html).toContain("<code>wallet.example</code>");
    expect(response.headers["content-security-policy"]).toContain("form-action 'self' https://wallet.example;");
    expect(response.headers["set-cookie"]).toMatch(
      /^attesto_as_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=3600$/,
    );
    expect(response.headers["x-frame-options"]).toBe("SAMEORIGIN");
  });

  it("shows only the configurations the wallet asked for, and identifiers when the metadata is unavailable", async () => {
    server.issuerDisplay.unavailable.add("globex");
    const requestUri = await pushed(
      { scope: "badge_v1" },
      { tenant: "globex", credentialConfigurationIds: ["badge_v1", "membership_v1"] },
    );
    const html = expectPage(
      await getAuthorize(server.app, { client_id: wallet.clientId, request_uri: requestUri }),
      200,
      "Add a credential",
    );
    expect(html).toContain('<strong id="issuer-name">globex</strong>');
    expect(html).toContain("badge_v1");
    expect(html).not.toContain("membership_v1");
  });

  it("escapes what it shows", async () => {
    const evil = createTestWallet('<img src=x onerror="alert(1)">');
    const { issuerState } = offerAuthorizationCode(server);
    const requestUri = await pushAuthorizationRequest(server, evil, createPkce(), { issuer_state: issuerState });
    const response = await getAuthorize(server.app, { client_id: evil.clientId, request_uri: requestUri });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(response.body).not.toContain("<img");
  });

  it("has no HEAD twin: a link preview cannot consume the request_uri", async () => {
    const requestUri = await pushed();
    const query = new URLSearchParams({ client_id: wallet.clientId, request_uri: requestUri });
    const head = await server.app.inject({ method: "HEAD", url: `/v1/authorize?${query}` });
    expect(head.statusCode).toBe(404);
    await openConsent(server.app, wallet.clientId, requestUri);
  });

  it("reuses the browser's session when it has one", async () => {
    const first = await openConsent(server.app, wallet.clientId, await pushed());
    const second = await getAuthorize(
      server.app,
      { client_id: wallet.clientId, request_uri: await pushed() },
      first.cookie,
    );
    expect(second.statusCode).toBe(200);
    expect(second.headers["set-cookie"]).toBeUndefined();
  });

  describe("error pages (4xx, never a redirect)", () => {
    it("400 for a reused request_uri (single use), also from the same browser", async () => {
      const requestUri = await pushed();
      const consent = await openConsent(server.app, wallet.clientId, requestUri);
      for (const cookie of [undefined, consent.cookie]) {
        const again = await getAuthorize(server.app, { client_id: wallet.clientId, request_uri: requestUri }, cookie);
        expectPage(again, 400, "Authorization request already used");
      }
    });

    it("400 for an expired request_uri (60 s)", async () => {
      const requestUri = await pushed();
      server.clock.advance(61);
      try {
        const response = await getAuthorize(server.app, { client_id: wallet.clientId, request_uri: requestUri });
        expectPage(response, 400, "Authorization request expired");
      } finally {
        server.clock.advance(-61);
      }
    });

    it("400 for an unknown request_uri", async () => {
      for (const requestUri of [`${REQUEST_URI_PREFIX}unknown`, "https://evil.example/request", "urn:x"]) {
        const response = await getAuthorize(server.app, { client_id: wallet.clientId, request_uri: requestUri });
        expectPage(response, 400, "Authorization request not found");
      }
    });

    it("400 for an unknown client (not the one that pushed), leaving the request usable by its client", async () => {
      const requestUri = await pushed();
      const response = await getAuthorize(server.app, { client_id: "someone-else", request_uri: requestUri });
      const html = expectPage(response, 400, "Unknown client");
      expect(html).not.toContain(REDIRECT_URI);
      await openConsent(server.app, wallet.clientId, requestUri);
    });

    it("400 without client_id or request_uri", async () => {
      const requestUri = await pushed();
      const queries: Array<Record<string, string>> = [{ client_id: wallet.clientId }, { request_uri: requestUri }, {}];
      for (const query of queries) {
        expectPage(await getAuthorize(server.app, query), 400, "Incomplete authorization request");
      }
    });
  });

  it("a request that names no credential offer goes back to the client with invalid_request", async () => {
    const requestUri = await pushAuthorizationRequest(server, wallet, createPkce(), { state: "st-no-offer" });
    const response = await getAuthorize(server.app, { client_id: wallet.clientId, request_uri: requestUri });
    const { base, query } = redirectParameters(response);
    expect(base).toBe(REDIRECT_URI);
    expect(query).toEqual({
      error: "invalid_request",
      error_description: "the authorization request names no credential offer (issuer_state)",
      state: "st-no-offer",
      iss: AUTH_URL,
    });
  });
});

describe("GET /v1/authorize behind https", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer({ publicUrl: "https://as.example.com" });
  });
  afterAll(() => server.close());

  it("sets a Secure session cookie", async () => {
    const wallet = createTestWallet();
    const { issuerState } = offerAuthorizationCode(server);
    const requestUri = await pushAuthorizationRequest(server, wallet, createPkce(), { issuer_state: issuerState });
    const response = await getAuthorize(server.app, { client_id: wallet.clientId, request_uri: requestUri });
    expect(response.headers["set-cookie"]).toMatch(/; HttpOnly; SameSite=Lax; Max-Age=3600; Secure$/);
  });
});

describe("POST /v1/authorize/submit", () => {
  let server: TestAuthServer;
  let wallet: TestWallet;
  beforeAll(async () => {
    server = await startTestAuthServer();
    wallet = createTestWallet();
  });
  afterAll(() => server.close());

  async function consent(overrides: Record<string, string> = {}) {
    const offer = offerAuthorizationCode(server);
    const requestUri = await pushAuthorizationRequest(server, wallet, createPkce(), {
      issuer_state: offer.issuerState,
      ...overrides,
    });
    return { ...(await openConsent(server.app, wallet.clientId, requestUri)), ...offer };
  }

  const answer = (
    form: { requestId: string; csrfToken: string; cookie: string },
    decision: string,
    cookie = form.cookie,
  ) => submitConsent(server.app, { request_id: form.requestId, csrf_token: form.csrfToken, decision }, cookie);

  it("Approve: 303 to the redirect_uri with code, state and iss (RFC 9207); the offer is redeemed", async () => {
    const form = await consent();
    const response = await answer(form, "approve");
    expect(response.headers["cache-control"]).toBe("no-store");
    const { base, query } = redirectParameters(response);
    expect(base).toBe(REDIRECT_URI);
    expect(query).toStrictEqual({
      code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: "wallet-state-1",
      iss: AUTH_URL,
    });
    expect(server.grants.issuerStateRequests.at(-1)).toEqual({ rpc: "redeem", issuerState: form.issuerState });
    const stored = await server.deps.authorizationCodes.find(createHash("sha256").update(query.code!).digest("hex"));
    expect(stored).toMatchObject({ clientId: wallet.clientId, redirectUri: REDIRECT_URI, redeemedAt: undefined });
    expect(stored!.expiresAt.getTime() - stored!.createdAt.getTime()).toBe(60_000);
  });

  it("keeps the redirect_uri's own query and leaves out an absent state", async () => {
    const offer = offerAuthorizationCode(server);
    const requestUri = await pushAuthorizationRequest(server, wallet, createPkce(), {
      issuer_state: offer.issuerState,
      redirect_uri: "eudi-wallet://authorized?flow=vci",
      state: undefined,
    });
    const form = await openConsent(server.app, wallet.clientId, requestUri);
    expect(form.response.headers["content-security-policy"]).toContain("form-action 'self' eudi-wallet:;");
    const location = new URL((await answer(form, "approve")).headers.location as string);
    expect(`${location.protocol}//${location.host}${location.pathname}`).toBe("eudi-wallet://authorized");
    expect([...location.searchParams.keys()]).toEqual(["flow", "code", "iss"]);
  });

  it("Deny: 303 with error=access_denied, state and iss; the offer stays unredeemed", async () => {
    const form = await consent();
    const { query } = redirectParameters(await answer(form, "deny"));
    expect(query).toStrictEqual({ error: "access_denied", state: "wallet-state-1", iss: AUTH_URL });
    expect(
      server.grants.issuerStateRequests.filter((r) => r.rpc === "redeem" && r.issuerState === form.issuerState),
    ).toEqual([]);
  });

  it("403 page for a wrong or missing CSRF token", async () => {
    const form = await consent();
    for (const csrfToken of ["x".repeat(43), ""]) {
      const response = await answer({ ...form, csrfToken }, "approve");
      expectPage(response, csrfToken ? 403 : 400, csrfToken ? "The form could not be verified" : "Incomplete form");
    }
    // The request is still answerable with the right token.
    expect((await answer(form, "deny")).statusCode).toBe(303);
  });

  it("403 page for a form sent from another browser session, or without the session cookie", async () => {
    const form = await consent();
    const other = await consent();
    expectPage(await answer(form, "approve", other.cookie), 403, "The form could not be verified");
    expectPage(await answer(form, "approve", ""), 403, "Your session has ended");
    expectPage(await answer(form, "approve", "attesto_as_session=forged"), 403, "Your session has ended");
  });

  it("400 page for a second answer, an unknown request, or a bad decision", async () => {
    const form = await consent();
    expect((await answer(form, "approve")).statusCode).toBe(303);
    expectPage(await answer(form, "approve"), 400, "Request already answered");
    expectPage(await answer(form, "deny"), 400, "Request already answered");
    expectPage(await answer({ ...form, requestId: randomUUID() }, "approve"), 400, "Authorization request not found");
    expectPage(await answer(form, "maybe"), 400, "Incomplete form");
  });

  it("400 page once the consent page has expired (AUTHORIZATION_CONSENT_TTL_SECONDS)", async () => {
    const form = await consent();
    server.clock.advance(601);
    try {
      expectPage(await answer(form, "approve"), 400, "Request expired");
    } finally {
      server.clock.advance(-601);
    }
  });

  it("an offer redeemed meanwhile: access_denied at the redirect_uri", async () => {
    const form = await consent();
    await server.grantService.redeemIssuerState({ issuerState: form.issuerState });
    const { query } = redirectParameters(await answer(form, "approve"));
    expect(query).toStrictEqual({
      error: "access_denied",
      error_description: "the credential offer has expired or was already used",
      state: "wallet-state-1",
      iss: AUTH_URL,
    });
  });
});

describe("POST /v1/authorize/submit: credential issuer unreachable at approval", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer();
  });
  afterAll(() => server.close());

  it("temporarily_unavailable at the redirect_uri", async () => {
    const wallet = createTestWallet();
    const { issuerState } = offerAuthorizationCode(server);
    const requestUri = await pushAuthorizationRequest(server, wallet, createPkce(), { issuer_state: issuerState });
    const form = await openConsent(server.app, wallet.clientId, requestUri);
    // The issuer goes away between the consent page and the approval.
    server.grantService.redeemIssuerState = async () => {
      throw new ConnectError("connection refused", Code.Unavailable);
    };
    const { query } = redirectParameters(
      await submitConsent(
        server.app,
        { request_id: form.requestId, csrf_token: form.csrfToken, decision: "approve" },
        form.cookie,
      ),
    );
    expect(query.error).toBe("temporarily_unavailable");
  });
});

describe("GET /end_session", () => {
  let server: TestAuthServer;
  const registered = "https://wallet.example/signed-out";
  beforeAll(async () => {
    server = await startTestAuthServer({
      env: { POST_LOGOUT_REDIRECT_URIS: `${registered}, https://other.example/bye` },
    });
  });
  afterAll(() => server.close());

  it("ends the session: the cookie is cleared and an open consent page can no longer be answered", async () => {
    const wallet = createTestWallet();
    const { issuerState } = offerAuthorizationCode(server);
    const requestUri = await pushAuthorizationRequest(server, wallet, createPkce(), { issuer_state: issuerState });
    const form = await openConsent(server.app, wallet.clientId, requestUri);
    const response = await server.app.inject({ method: "GET", url: "/end_session", headers: { cookie: form.cookie } });
    expectPage(response, 200, "You are signed out");
    expect(response.headers["set-cookie"]).toBe("attesto_as_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
    const late = await submitConsent(
      server.app,
      { request_id: form.requestId, csrf_token: form.csrfToken, decision: "approve" },
      form.cookie,
    );
    expectPage(late, 403, "Your session has ended");
  });

  it("redirects only to a registered post_logout_redirect_uri, with state", async () => {
    const response = await server.app.inject({
      method: "GET",
      url: `/end_session?post_logout_redirect_uri=${encodeURIComponent(registered)}&state=bye-1`,
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`${registered}?state=bye-1`);
    for (const target of ["https://evil.example/", `${registered}/x`, "https://wallet.example/signed-out?x=1"]) {
      const refused = await server.app.inject({
        method: "GET",
        url: `/end_session?post_logout_redirect_uri=${encodeURIComponent(target)}`,
      });
      expectPage(refused, 200, "You are signed out");
    }
  });

  it("shows the signed-out page without a session or a return address", async () => {
    expectPage(await server.app.inject({ method: "GET", url: "/end_session" }), 200, "You are signed out");
  });
});
