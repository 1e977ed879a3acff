import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type HolderWithIssuer, startHolderWithIssuer } from "./support/holder-with-issuer.js";
import { DIPLOMA_VCT, type IssuerDouble } from "./support/issuer-double.js";
import { type Account, startTestHolder, type TestHolder } from "./support/test-holder.js";

describe("POST /v1/oid4vci/offer-details", () => {
  let holder: TestHolder;
  let issuer: IssuerDouble;
  let account: Account;
  let setup: HolderWithIssuer;
  beforeAll(async () => {
    setup = await startHolderWithIssuer();
    ({ holder, issuer, account } = setup);
  });
  afterAll(() => setup.close());
  beforeEach(() => issuer.reset());

  const details = (link: string) =>
    holder.app.inject({
      method: "POST",
      url: "/v1/oid4vci/offer-details",
      headers: account.headers,
      payload: { credential_offer_uri: link },
    });

  it("resolves an offer by reference: issuer, display, configurations, grant and expiry (shape in this service's README)", async () => {
    const expiresAt = new Date(Date.now() + 600_000).toISOString();
    const { link, code } = issuer.offer({ configurationIds: ["diploma", "badge"], expiresAt });
    const response = await details(link);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      issuer: issuer.issuerId,
      issuer_name: "Acme University",
      issuer_logo_uri: "https://acme.example/logo.png",
      credential_configurations: [
        {
          id: "diploma",
          format: "dc+sd-jwt",
          vct: DIPLOMA_VCT,
          display: { name: "University Diploma", locale: "en-US" },
        },
        {
          id: "badge",
          format: "dc+sd-jwt",
          vct: "https://schemas.example/employee-badge/v1",
          display: { name: "Employee Badge", locale: "en-US" },
        },
      ],
      pre_authorized_code_grant: { pre_authorized_code: code, user_pin_required: false },
      expires_at: expiresAt,
    });
    // The metadata came from the well-known insertion path; nothing was redeemed.
    expect(issuer.requests).toContain("GET /.well-known/openid-credential-issuer/acme");
    expect(issuer.requests.some((r) => r.includes("token"))).toBe(false);
  });

  it("resolves an offer by value (credential_offer) and reports a required transaction code", async () => {
    const { link, code } = issuer.offer({ byValue: true, txCode: "1234" });
    const response = await details(link);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      pre_authorized_code_grant: { pre_authorized_code: code, user_pin_required: true },
      expires_at: null,
    });
    expect(issuer.requests.some((r) => r.startsWith("GET /offers/"))).toBe(false);
  });

  it("falls back to the configuration id and null locale when there is no display; null grant for an authorization-code offer", async () => {
    issuer.metadataOverrides.display = undefined;
    issuer.metadataOverrides.credential_configurations_supported = { plain: { format: "dc+sd-jwt", vct: DIPLOMA_VCT } };
    const { link } = issuer.offer({
      configurationIds: ["plain"],
      grants: { authorization_code: { issuer_state: "abc" } },
    });
    const response = await details(link);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      issuer_name: null,
      issuer_logo_uri: null,
      credential_configurations: [{ id: "plain", display: { name: "plain", locale: null } }],
      pre_authorized_code_grant: null,
    });
  });

  it.each([
    ["an expired offer (410)", { status: 410 }, "credential offer has expired (the issuer answered 410)"],
    ["an unknown offer (404)", { status: 404 }, "credential offer not found (the issuer answered 404)"],
    ["an offer whose expires_at has passed", { expiresAt: "2020-01-01T00:00:00Z" }, "credential offer has expired"],
    ["an offer without configurations", { configurationIds: [] }, "credential_configuration_ids must not be empty"],
    [
      "an offer of a configuration the metadata lacks",
      { configurationIds: ["unknown"] },
      "an offered credential configuration is not in the issuer metadata",
    ],
  ])("400 invalid_offer for %s", async (_label, options, message) => {
    const { link } = issuer.offer(options);
    const response = await details(link);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: "invalid_offer", message: expect.stringContaining(message) });
  });

  it("400 when the metadata names another credential_issuer, or cannot be found", async () => {
    issuer.metadataOverrides.credential_issuer = "https://elsewhere.example/acme";
    const mismatch = await details(issuer.offer().link);
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().message).toContain("names another credential_issuer");
    const missing = await details(
      issuer.offer({ documentOverrides: { credential_issuer: `${issuer.baseUrl}/nobody` } }).link,
    );
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toContain("credential issuer metadata not found");
  });

  it.each([
    ["not a URL", "hello"],
    ["another scheme", "openid4vp://?client_id=x&request_uri=https%3A%2F%2Fv.example%2Fr"],
    ["no parameter", "openid-credential-offer://?foo=bar"],
    [
      "both parameters",
      "openid-credential-offer://?credential_offer=%7B%7D&credential_offer_uri=https%3A%2F%2Fa.example",
    ],
    ["an offer that is not JSON", "openid-credential-offer://?credential_offer=nope"],
    ["an unreachable offer URI", "openid-credential-offer://?credential_offer_uri=http%3A%2F%2F127.0.0.1%3A1%2Foffer"],
  ])("400 for %s", async (_label, link) => {
    const response = await details(link);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe("invalid_offer");
  });

  it("400 for a missing credential_offer_uri", async () => {
    const response = await holder.app.inject({
      method: "POST",
      url: "/v1/oid4vci/offer-details",
      headers: account.headers,
      payload: {},
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: "invalid_request",
      message: expect.stringContaining("credential_offer_uri is required"),
      errors: [{ field: "credential_offer_uri", message: "is required" }],
    });
  });

  it("by default (no OUTBOUND_ALLOW_HTTP), http offer URIs are refused without a request", async () => {
    const strict = await startTestHolder({ guard: "configured" });
    try {
      const other = await strict.account();
      const before = issuer.requests.length;
      const response = await strict.app.inject({
        method: "POST",
        url: "/v1/oid4vci/offer-details",
        headers: other.headers,
        payload: { credential_offer_uri: issuer.offer().link },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toContain("must use https");
      expect(issuer.requests.length).toBe(before);
    } finally {
      await strict.close();
    }
  });
});
