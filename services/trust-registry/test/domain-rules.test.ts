import { describe, expect, it } from "vitest";
import { provisionCredentialConfigurations } from "../src/domain/apply-for-tenant.js";
import { credentialConfigurationId } from "../src/domain/credential-configuration-id.js";
import { ed25519VerificationMethods } from "../src/domain/did-document.js";

describe("credentialConfigurationId", () => {
  it("is the type for v1 and <type>-<version> otherwise", () => {
    expect(credentialConfigurationId("university-diploma", "v1")).toBe("university-diploma");
    expect(credentialConfigurationId("university-diploma", "v2")).toBe("university-diploma-v2");
    expect(credentialConfigurationId("pid", "2024-01")).toBe("pid-2024-01");
  });

  it("provisions one configuration per id", () => {
    expect(
      provisionCredentialConfigurations([
        { type: "a", version: "v1", vct: "https://r/schemas/a/v1" },
        { type: "a", version: "v2", vct: "https://r/schemas/a/v2" },
        { type: "a", version: "v1", vct: "https://r/schemas/a/v1" },
      ]),
    ).toEqual([
      { id: "a", type: "a", version: "v1", vct: "https://r/schemas/a/v1" },
      { id: "a-v2", type: "a", version: "v2", vct: "https://r/schemas/a/v2" },
    ]);
  });
});

describe("ed25519VerificationMethods", () => {
  const did = "did:ledger:abc";
  const x = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";

  it("reads publicKeyJwk entries and makes relative ids absolute", () => {
    const document = {
      id: did,
      verificationMethod: [
        { id: "#key-1", type: "JsonWebKey2020", controller: did, publicKeyJwk: { kty: "OKP", crv: "Ed25519", x } },
        { id: `${did}#p256`, type: "JsonWebKey2020", publicKeyJwk: { kty: "EC", crv: "P-256", x: "a", y: "b" } },
        "not-an-object",
      ],
    };
    expect(ed25519VerificationMethods(did, document)).toEqual([
      { id: `${did}#key-1`, publicJwk: { kty: "OKP", crv: "Ed25519", x } },
    ]);
  });

  it("reads Multikey publicKeyMultibase entries (z + base58btc of 0xed01 || key)", () => {
    // RFC 8037 test key: d75a9801...511a as x; its Multikey form.
    const multibase = "z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw";
    const [method] = ed25519VerificationMethods(did, {
      verificationMethod: [{ id: `${did}#key-1`, type: "Multikey", publicKeyMultibase: multibase }],
    });
    expect(method).toEqual({ id: `${did}#key-1`, publicJwk: { kty: "OKP", crv: "Ed25519", x } });
  });

  it("returns nothing for a document without verification methods", () => {
    expect(ed25519VerificationMethods(did, {})).toEqual([]);
  });
});
