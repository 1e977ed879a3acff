import { describe, expect, it } from "vitest";
import { createIssuerDisplayClient, issuerDisplayOf } from "../src/clients/issuer-display.client.js";

/** Issuer metadata as the credential issuer publishes it (OID4VCI 1.0, the credential-issuer README). */
const metadata = {
  credential_issuer: "http://localhost:8082/acme",
  display: [
    { name: "ACME Universität", locale: "de-DE" },
    { name: "ACME University", locale: "en-US" },
  ],
  credential_configurations_supported: {
    diploma_v1: {
      format: "dc+sd-jwt",
      vct: "http://localhost:8086/schemas/diploma/v1",
      credential_metadata: {
        display: [{ name: "University Diploma", locale: "en-US", description: "A degree" }],
        claims: [
          { path: ["given_name"], display: [{ name: "Given name", locale: "en-US" }] },
          { path: ["address", "country"] },
          { path: ["address"], display: [{ name: "Adresse", locale: "de-DE" }] },
          { path: ["degrees", null, "title"], display: [{ name: "Degree title" }] },
        ],
      },
    },
    legacy_v1: { format: "dc+sd-jwt", display: [{ name: "Legacy Card" }] },
    bare_v1: { format: "dc+sd-jwt" },
  },
};

describe("issuer metadata for the consent page", () => {
  it("takes English names, descriptions and the labels of claims named by object keys", () => {
    expect(issuerDisplayOf(metadata)).toStrictEqual({
      name: "ACME University",
      configurations: {
        diploma_v1: {
          name: "University Diploma",
          description: "A degree",
          claims: [
            { path: ["given_name"], label: "Given name" },
            { path: ["address"], label: "Adresse" },
          ],
        },
        legacy_v1: { name: "Legacy Card", description: undefined, claims: [] },
        bare_v1: { name: undefined, description: undefined, claims: [] },
      },
    });
    expect(issuerDisplayOf("nonsense")).toStrictEqual({ name: undefined, configurations: {} });
  });

  it("fetches <CREDENTIAL_ISSUER_URL>/.well-known/openid-credential-issuer/<tenant>, caches it, and shrugs at failures", async () => {
    const requested: string[] = [];
    let answer: () => Response = () => Response.json(metadata);
    let clock = 0;
    const client = createIssuerDisplayClient({
      credentialIssuerUrl: "http://issuer.internal:8082",
      timeoutMs: 1000,
      now: () => clock,
      fetch: async (input) => {
        requested.push(String(input));
        return answer();
      },
    });
    expect((await client.describe("acme"))?.name).toBe("ACME University");
    expect((await client.describe("acme"))?.name).toBe("ACME University");
    expect(requested).toEqual(["http://issuer.internal:8082/.well-known/openid-credential-issuer/acme"]);
    clock += 61_000;
    answer = () => new Response("gone", { status: 404 });
    expect(await client.describe("acme")).toBeUndefined();
    answer = () => {
      throw new TypeError("fetch failed");
    };
    expect(await client.describe("globex")).toBeUndefined();
  });
});
