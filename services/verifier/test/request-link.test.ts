import { LINK_PAGE_CSP, QR_SVG_CSP } from "@attesto/runtime/link-page";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, postPresentation, startTestVerifier, type TestVerifier } from "./support/test-verifier.js";

/** The request's QR code, public page and status (GET /v1/verifier/request/:requestUriId/{qr.svg,page,status}). */
describe("request link: QR code, page, status", () => {
  let verifier: TestVerifier;
  beforeAll(async () => {
    verifier = await startTestVerifier();
  });
  afterAll(() => verifier.close());

  const get = (url: string) => verifier.app.inject({ method: "GET", url });

  it("serves the QR code as an SVG image that loads nothing, never cached", async () => {
    const session = await openSession(verifier.app, { client_metadata: { client_name: "Rentals" } });
    const response = await get(`/v1/verifier/request/${session.requestUriId}/qr.svg`);
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("image/svg+xml; charset=utf-8");
    expect(response.headers["content-security-policy"]).toBe(QR_SVG_CSP);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*viewBox="0 0 \d+ \d+"/);
    expect(response.body).not.toMatch(/<script|href=/i);
  });

  it("the page carries the exact link, its QR code and the status, and nothing of the session", async () => {
    const session = await openSession(verifier.app, { client_metadata: { client_name: "Secret Rentals Ltd" } });
    const response = await get(`/v1/verifier/request/${session.requestUriId}/page`);
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(response.headers["content-security-policy"]).toBe(LINK_PAGE_CSP);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers["x-robots-tag"]).toBe("noindex, nofollow");
    const html = response.body;
    expect(html).toContain(`href="${session.authorizationRequest.replaceAll("&", "&amp;")}"`);
    expect(html).toContain('data-status="pending"');
    expect(html).toContain("<svg");
    // Neither the session id (the RP's handle on the result), the nonce, the state, the query nor the RP's metadata.
    for (const secret of [
      session.sessionId,
      session.request.nonce,
      session.request.state,
      "given_name",
      "Secret Rentals",
    ]) {
      expect(html).not.toContain(secret);
    }
  });

  it("status follows the session: pending, then completed or failed (no check results), expired", async () => {
    const session = await openSession(verifier.app);
    const status = async () => (await get(`/v1/verifier/request/${session.requestUriId}/status`)).json();
    expect(await status()).toEqual({ status: "pending", expires_at: expect.any(String) });
    const posted = await postPresentation(verifier.app, { state: session.request.state, vp_token: "not-an-sd-jwt" });
    expect(posted.statusCode).toBe(200);
    expect(await status()).toEqual({ status: "failed", expires_at: expect.any(String) });
    const page = await get(`/v1/verifier/request/${session.requestUriId}/page`);
    // A final status: no QR code or button to act on.
    expect(page.body).toMatch(/<div id="qr"[^>]* hidden>/);
    expect(page.body).toMatch(/<a id="open"[^>]* hidden>/);

    const later = await openSession(verifier.app);
    verifier.clock.advance(301);
    try {
      expect((await get(`/v1/verifier/request/${later.requestUriId}/status`)).json().status).toBe("expired");
    } finally {
      verifier.clock.advance(-301);
    }
  });

  it("an unknown id is 404 on all three", async () => {
    for (const suffix of ["qr.svg", "page", "status"]) {
      const unknown = await get(`/v1/verifier/request/${"A".repeat(32)}/${suffix}`);
      expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: "not_found", message: "Request not found" }]);
    }
  });
});
