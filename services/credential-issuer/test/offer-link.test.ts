import { createHash } from "node:crypto";
import { LINK_PAGE_CSP, QR_SVG_CSP } from "@attesto/runtime/link-page";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diplomaClaims } from "./support/credential-type.fixture.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import { createOffer } from "./support/wallet.js";

/** The offer's QR code, public page and status (GET /v1/offers/:offerId/{qr.svg,page,status}). */
describe("offer link: QR code, page, status", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  const get = (url: string) => issuer.app.inject({ method: "GET", url });

  it("serves the QR code as an SVG image that loads nothing, never cached", async () => {
    const created = (await createOffer(issuer)).json();
    const response = await get(new URL(created.qr_code_url).pathname);
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("image/svg+xml; charset=utf-8");
    expect(response.headers["content-security-policy"]).toBe(QR_SVG_CSP);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(response.body).not.toMatch(/<script|href=/i);
  });

  it("the page carries the exact deep link and its QR code, and no claim value or code", async () => {
    const created = (await createOffer(issuer)).json();
    const response = await get(new URL(created.page_url).pathname);
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(response.headers["content-security-policy"]).toBe(LINK_PAGE_CSP);
    expect(response.headers["cache-control"]).toBe("no-store");
    const html = response.body;
    expect(html).toContain(`href="${created.deep_link}"`);
    expect(html).toContain('data-status="offered"');
    const document = (await get(`/v1/offers/${created.offer_id}`)).json();
    const code = document.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"];
    const claims = diplomaClaims;
    for (const secret of [code, claims.given_name, claims.family_name, "acme", "university-diploma"]) {
      expect(html).not.toContain(String(secret));
    }
  });

  it("status: offered, redeemed once a wallet exchanged the code, expired when never taken", async () => {
    const created = (await createOffer(issuer)).json();
    const status = async (offerId: string) => (await get(`/v1/offers/${offerId}/status`)).json().status;
    expect(await status(created.offer_id)).toBe("offered");
    const document = (await get(`/v1/offers/${created.offer_id}`)).json();
    const code = document.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"];
    const codeHash = createHash("sha256").update(code).digest("hex");
    expect(
      await issuer.deps.offers.redeemPreAuthorizedCode(codeHash, undefined, undefined, issuer.clock.now),
    ).toBeDefined();
    expect(await status(created.offer_id)).toBe("redeemed");
    const page = await get(`/v1/offers/${created.offer_id}/page`);
    expect(page.body).toMatch(/<div id="qr"[^>]* hidden>/);

    const untaken = (await createOffer(issuer, { expires_in: 60 })).json();
    issuer.clock.advance(61);
    expect(await status(untaken.offer_id)).toBe("expired");
    expect((await get(`/v1/offers/${untaken.offer_id}/status`)).json().expires_at).toBe(untaken.expires_at);
  });

  it("404 for an unknown offer, 400 for an id that is not a UUID", async () => {
    for (const suffix of ["qr.svg", "page", "status"]) {
      const unknown = await get(`/v1/offers/00000000-0000-4000-8000-000000000000/${suffix}`);
      expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: "not_found", message: "Offer not found" }]);
      expect((await get(`/v1/offers/nope/${suffix}`)).statusCode).toBe(400);
    }
  });
});
