import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AS_URL, ISSUER_URL, startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import { createOffer } from "./support/wallet.js";

describe("GET /v1/offers/:offerId", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  const get = (offerId: string) => issuer.app.inject({ method: "GET", url: `/v1/offers/${offerId}` });

  it("returns the OID4VCI credential offer of a pre-authorized offer, not cacheable", async () => {
    const created = (await createOffer(issuer)).json();
    const response = await get(created.offer_id);
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    const document = response.json();
    expect(document).toEqual({
      credential_issuer: `${ISSUER_URL}/acme`,
      credential_configuration_ids: ["university-diploma"],
      grants: {
        "urn:ietf:params:oauth:grant-type:pre-authorized_code": { "pre-authorized_code": expect.any(String) },
      },
      expires_at: created.expires_at,
    });
    const code = document.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"];
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The same code every time the live offer is fetched.
    expect((await get(created.offer_id)).json()).toEqual(document);
  });

  it("returns authorization_code with an issuer_state for an authorization-code offer", async () => {
    const created = (await createOffer(issuer, { flow: "authorization-code" })).json();
    const document = (await get(created.offer_id)).json();
    expect(document).toEqual({
      credential_issuer: `${ISSUER_URL}/acme`,
      credential_configuration_ids: ["university-diploma"],
      grants: { authorization_code: { issuer_state: expect.any(String), authorization_server: AS_URL } },
      expires_at: created.expires_at,
    });
    expect(document.grants.authorization_code.issuer_state).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it("answers 400 for an offer id that is not a UUID", async () => {
    const response = await get("not-a-uuid");
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: "invalid_request",
      message: "offerId must be a UUID",
      errors: [{ field: "offerId", message: "must be a UUID" }],
    });
  });

  it("answers 404 for an unknown offer", async () => {
    const response = await get("3f2b8c1e-0d4a-4b6e-9f1a-2c3d4e5f6a7b");
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: "not_found", message: "Offer not found" });
    expect((await get("00000000-0000-0000-0000-000000000000")).statusCode).toBe(404);
  });

  it("answers 410 once the offer has expired", async () => {
    const created = (await createOffer(issuer, { expires_in: 60 })).json();
    issuer.clock.advance(59);
    expect((await get(created.offer_id)).statusCode).toBe(200);
    issuer.clock.advance(1);
    const response = await get(created.offer_id);
    expect(response.statusCode).toBe(410);
    expect(response.json()).toEqual({ error: "gone", message: "Offer has expired" });
  });

  it("finds offers whatever the case of the UUID", async () => {
    const created = (await createOffer(issuer)).json();
    expect((await get(created.offer_id.toUpperCase())).statusCode).toBe(200);
  });
});
