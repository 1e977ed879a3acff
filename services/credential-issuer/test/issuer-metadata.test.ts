import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BADGE_VCT, DIPLOMA_VCT } from "./support/credential-type.fixture.js";
import { AS_URL, ISSUER_URL, startTestIssuer, type TestIssuer } from "./support/test-issuer.js";

/** The diploma's display, answered both in credential_metadata and at the configuration's top level. */
const DIPLOMA_DISPLAY = [
  {
    name: "University Diploma",
    locale: "en-US",
    description: "Academic degree awarded by a university",
    background_color: "#5B2C6F",
    text_color: "#FFFFFF",
    logo: { uri: "https://schemas.example/logo.png", alt_text: "Logo" },
  },
  { name: "Hochschulabschluss", locale: "de-DE" },
];
describe("issuer metadata and landing page", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  const expectedMetadata = {
    credential_issuer: `${ISSUER_URL}/acme`,
    authorization_servers: [AS_URL],
    credential_endpoint: `${ISSUER_URL}/credential`,
    nonce_endpoint: `${ISSUER_URL}/v1/nonce`,
    notification_endpoint: `${ISSUER_URL}/notification`,
    batch_credential_issuance: { batch_size: 10 },
    display: [{ name: 'Acme <University> & "Co"', locale: "en-US" }],
    credential_configurations_supported: {
      "university-diploma": {
        format: "dc+sd-jwt",
        scope: "university-diploma",
        vct: DIPLOMA_VCT,
        credential_signing_alg_values_supported: ["ES256", "EdDSA"],
        cryptographic_binding_methods_supported: ["did", "jwk"],
        proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["ES256", "EdDSA"] } },
        credential_metadata: {
          display: DIPLOMA_DISPLAY,
          claims: [
            {
              path: ["given_name"],
              mandatory: true,
              display: [
                { name: "Given name", locale: "en-US" },
                { name: "Vorname", locale: "de-DE" },
              ],
            },
            { path: ["family_name"], mandatory: true },
            { path: ["degree"], mandatory: true, display: [{ name: "Degree", locale: "en-US" }] },
          ],
        },
        display: DIPLOMA_DISPLAY,
      },
      "employee-badge": {
        format: "dc+sd-jwt",
        scope: "employee-badge",
        vct: BADGE_VCT,
        credential_signing_alg_values_supported: ["ES256", "EdDSA"],
        cryptographic_binding_methods_supported: ["did", "jwk"],
        proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["ES256", "EdDSA"] } },
        credential_metadata: { claims: [{ path: ["employee_id"], mandatory: true }] },
      },
    },
  };

  it("serves the OID4VCI credential issuer metadata of a tenant, built from its configurations", async () => {
    const response = await issuer.app.inject({ method: "GET", url: "/.well-known/openid-credential-issuer/acme" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(response.json()).toEqual(expectedMetadata);
  });

  it("serves the same document at the older /<tenant>/.well-known path", async () => {
    const response = await issuer.app.inject({ method: "GET", url: "/acme/.well-known/openid-credential-issuer" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(expectedMetadata);
  });

  it("lists no configurations for a tenant without any", async () => {
    const response = await issuer.app.inject({
      method: "GET",
      url: "/.well-known/openid-credential-issuer/verifier-co",
    });
    expect(response.json()).toMatchObject({
      credential_issuer: `${ISSUER_URL}/verifier-co`,
      credential_configurations_supported: {},
    });
  });

  it("matches the tenant case-insensitively (tenants are lowercased at registration), naming the stored one", async () => {
    for (const url of ["/.well-known/openid-credential-issuer/ACME", "/Acme/.well-known/openid-credential-issuer"]) {
      const response = await issuer.app.inject({ method: "GET", url });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(expectedMetadata);
    }
    const landing = await issuer.app.inject({ method: "GET", url: "/ACME" });
    expect(landing.statusCode).toBe(200);
    expect(landing.body).toContain(`<code>${ISSUER_URL}/acme</code>`);
  });

  it("answers 404 for an unknown tenant, on both paths", async () => {
    for (const url of [
      "/.well-known/openid-credential-issuer/nobody",
      "/nobody/.well-known/openid-credential-issuer",
    ]) {
      const response = await issuer.app.inject({ method: "GET", url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: "not_found", message: "Tenant not found" });
    }
    const invalid = await issuer.app.inject({ method: "GET", url: "/.well-known/openid-credential-issuer/No%20Body" });
    expect(invalid.statusCode).toBe(404);
  });

  it("serves an HTML landing page with escaped content and the debugging links", async () => {
    const response = await issuer.app.inject({ method: "GET", url: "/acme" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    const html = response.body;
    expect(html).toContain("<title>Acme &lt;University&gt; &amp; &quot;Co&quot;: credentials</title>");
    expect(html).not.toContain("<University>");
    expect(html).toContain(`<code>${ISSUER_URL}/acme</code>`);
    expect(html).toContain(`href="${ISSUER_URL}/.well-known/openid-credential-issuer/acme"`);
    expect(html).toContain(`href="${AS_URL}/.well-known/oauth-authorization-server"`);
    expect(html).toContain('href="http://localhost:8086/schemas"');
    expect(html).toContain('href="http://localhost:8085/.well-known/did-configuration.json/acme"');
    // The offered types by display name (no issuer configuration: every provisioned one), no claim values.
    expect(html).toMatch(/<li class="type" data-id="university-diploma"><strong>[^<]+<\/strong>/);
    expect(response.headers["content-security-policy"]).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(html).not.toContain("<script");
  });

  it("answers 404 on the landing page of an unknown tenant", async () => {
    const response = await issuer.app.inject({ method: "GET", url: "/nobody" });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: "not_found", message: "Tenant not found" });
  });

  it("does not let /:tenant shadow the issuer's own paths", async () => {
    const health = await issuer.app.inject({ method: "GET", url: "/health" });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: "ok", service: "credential-issuer" });
    for (const path of ["/credential", "/v1", "/metrics"]) {
      const response = await issuer.app.inject({ method: "GET", url: path });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: "not_found", message: "Route not found" });
    }
    const nonce = await issuer.app.inject({ method: "POST", url: "/v1/nonce" });
    expect(nonce.statusCode).toBe(200);
  });
});
