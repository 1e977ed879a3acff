import { createPrivateKey } from "node:crypto";
import { generateEd25519Jwk, generateP256Jwk } from "@attesto/protocol";
import { ConfigError } from "@attesto/runtime/config";
import { testIdentityEnv } from "@attesto/runtime/testing";
import { describe, expect, it } from "vitest";
import { loadAuthServerConfig } from "../src/config.js";

const key = generateP256Jwk();
const { d: _providerD, ...walletProvider } = generateP256Jwk();
/** The required settings, and one wallet provider (attestation is required by default). */
const base: Record<string, string | undefined> = {
  DATABASE_URL: "postgres://localhost/test",
  ...testIdentityEnv("auth-server"),
  ACCESS_TOKEN_SIGNING_KEY: JSON.stringify(key),
  DPOP_NONCE_SECRET: "d".repeat(32),
  CLIENT_ATTESTATION_TRUSTED_KEYS: JSON.stringify({ keys: [walletProvider] }),
};

function configError(env: Record<string, string | undefined>): string {
  try {
    loadAuthServerConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("auth-server configuration", () => {
  it("has the documented defaults", () => {
    const config = loadAuthServerConfig(base);
    expect(config).toMatchObject({
      PORT: 8081,
      INTERNAL_PORT: 9081,
      DATABASE_SCHEMA: "auth_server",
      CREDENTIAL_ISSUER_URL: "http://localhost:8082",
      CREDENTIAL_ISSUER_INTERNAL_URL: "http://localhost:9082",
      ACCESS_TOKEN_TTL_SECONDS: 3600,
      DPOP_NONCE_REQUIRED: true,
      ACCESS_TOKEN_SIGNING_KEY: { kty: "EC", crv: "P-256", x: key.x, y: key.y, d: key.d },
      CLIENT_ATTESTATION_REQUIRED_AUTH_CODE: true,
      CLIENT_ATTESTATION_REQUIRED_AT_TOKEN: true,
      CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: false,
      CLIENT_ATTESTATION_TRUSTED_KEYS: [walletProvider],
      POST_LOGOUT_REDIRECT_URIS: [],
      AUTHORIZATION_CONSENT_TTL_SECONDS: 600,
    });
    expect(config.CLIENT_ATTESTATION_TRUSTED_X5C_ROOTS_PEM).toBeUndefined();
  });

  it("trusts the demo wallet provider (public private key) only when asked to", () => {
    expect(loadAuthServerConfig(base).CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER).toBe(false);
    const demo = loadAuthServerConfig({
      ...base,
      CLIENT_ATTESTATION_TRUSTED_KEYS: undefined,
      CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: "true",
    });
    expect(demo.CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER).toBe(true);
    // Nothing configured: nobody is trusted (every PAR is refused; the service warns at start).
    const nobody = loadAuthServerConfig({ ...base, CLIENT_ATTESTATION_TRUSTED_KEYS: undefined });
    expect(nobody.CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER).toBe(false);
    expect(nobody.CLIENT_ATTESTATION_TRUSTED_KEYS).toBeUndefined();
  });

  it("reads wallet provider trust, post-logout URIs and the consent lifetime", () => {
    const provider = { kty: "OKP", crv: "Ed25519", x: generateEd25519Jwk().x, kid: "p1" };
    const { d: _d, ...p256 } = generateP256Jwk();
    for (const keys of [JSON.stringify({ keys: [provider, p256] }), JSON.stringify([provider, p256])]) {
      const config = loadAuthServerConfig({
        ...base,
        CLIENT_ATTESTATION_TRUSTED_KEYS: keys,
        CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: "false",
        POST_LOGOUT_REDIRECT_URIS: "https://wallet.example/bye, https://other.example/",
        AUTHORIZATION_CONSENT_TTL_SECONDS: "120",
        CLIENT_ATTESTATION_REQUIRED_AT_TOKEN: "false",
      });
      expect(config).toMatchObject({
        CLIENT_ATTESTATION_TRUSTED_KEYS: [provider, p256],
        CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: false,
        CLIENT_ATTESTATION_REQUIRED_AT_TOKEN: false,
        POST_LOGOUT_REDIRECT_URIS: ["https://wallet.example/bye", "https://other.example/"],
        AUTHORIZATION_CONSENT_TTL_SECONDS: 120,
      });
    }
  });

  it("refuses bad wallet provider keys and roots", () => {
    expect(configError({ ...base, CLIENT_ATTESTATION_TRUSTED_KEYS: "{oops" })).toContain(
      "CLIENT_ATTESTATION_TRUSTED_KEYS: must be a JWKS as JSON: not valid JSON",
    );
    expect(configError({ ...base, CLIENT_ATTESTATION_TRUSTED_KEYS: JSON.stringify([key]) })).toContain(
      "CLIENT_ATTESTATION_TRUSTED_KEYS: trusted wallet provider key 0 contains private key material",
    );
    expect(
      configError({
        ...base,
        CLIENT_ATTESTATION_TRUSTED_KEYS: JSON.stringify({ keys: [{ kty: "RSA", n: "x", e: "AQAB" }] }),
      }),
    ).toContain(
      "CLIENT_ATTESTATION_TRUSTED_KEYS: trusted wallet provider key 0 must be an EC P-256 or OKP Ed25519 public key",
    );
    expect(configError({ ...base, CLIENT_ATTESTATION_TRUSTED_KEYS: "[1]" })).toContain(
      "CLIENT_ATTESTATION_TRUSTED_KEYS: must be a JWKS as JSON: every key must be a JWK object",
    );
    expect(configError({ ...base, CLIENT_ATTESTATION_TRUSTED_X5C_ROOTS_PEM: "not pem" })).toContain(
      "CLIENT_ATTESTATION_TRUSTED_X5C_ROOTS_PEM: must be PEM certificates",
    );
    expect(configError({ ...base, POST_LOGOUT_REDIRECT_URIS: "/relative" })).toContain(
      "POST_LOGOUT_REDIRECT_URIS: /relative is not an absolute URL",
    );
    expect(
      loadAuthServerConfig({
        ...base,
        CLIENT_ATTESTATION_TRUSTED_KEYS: undefined,
        CLIENT_ATTESTATION_REQUIRED_AUTH_CODE: "false",
      }).CLIENT_ATTESTATION_REQUIRED_AUTH_CODE,
    ).toBe(false);
  });

  it("reads URLs without a trailing slash, flags and durations", () => {
    const config = loadAuthServerConfig({
      ...base,
      CREDENTIAL_ISSUER_URL: "https://issuer.example.com/",
      CREDENTIAL_ISSUER_INTERNAL_URL: "http://credential-issuer:9082/",
      DPOP_NONCE_REQUIRED: "false",
      ACCESS_TOKEN_TTL_SECONDS: "600",
    });
    expect(config).toMatchObject({
      CREDENTIAL_ISSUER_URL: "https://issuer.example.com",
      CREDENTIAL_ISSUER_INTERNAL_URL: "http://credential-issuer:9082",
      DPOP_NONCE_REQUIRED: false,
      ACCESS_TOKEN_TTL_SECONDS: 600,
    });
  });

  it("accepts the signing key as PKCS#8 PEM, also on one line with \\n escapes", () => {
    const pem = createPrivateKey({ key, format: "jwk" }).export({ format: "pem", type: "pkcs8" }).toString();
    for (const value of [pem, pem.trim().replace(/\n/g, "\\n")]) {
      expect(loadAuthServerConfig({ ...base, ACCESS_TOKEN_SIGNING_KEY: value }).ACCESS_TOKEN_SIGNING_KEY).toEqual({
        kty: "EC",
        crv: "P-256",
        x: key.x,
        y: key.y,
        d: key.d,
      });
    }
  });

  it("requires the signing key and the nonce secret, naming both", () => {
    const message = configError({ ...base, ACCESS_TOKEN_SIGNING_KEY: undefined, DPOP_NONCE_SECRET: undefined });
    expect(message).toContain("ACCESS_TOKEN_SIGNING_KEY is required");
    expect(message).toContain("DPOP_NONCE_SECRET is required");
  });

  it("refuses a short nonce secret", () => {
    expect(configError({ ...base, DPOP_NONCE_SECRET: "short" })).toContain(
      "DPOP_NONCE_SECRET must be at least 32 characters",
    );
  });

  it("refuses a signing key that is not a P-256 private key, without echoing it", () => {
    const ed = generateEd25519Jwk();
    const { d: _d, ...publicOnly } = key;
    const edPem = createPrivateKey({ key: ed, format: "jwk" }).export({ format: "pem", type: "pkcs8" }).toString();
    for (const [value, reason] of [
      ["{not json", "not valid JSON"],
      [JSON.stringify(ed), "must be a P-256 private JWK"],
      [JSON.stringify(publicOnly), "must be a P-256 private JWK"],
      ["-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", "not a valid PEM"],
      [edPem, "not a P-256 key"],
    ] as const) {
      const message = configError({ ...base, ACCESS_TOKEN_SIGNING_KEY: value });
      expect(message, value).toContain(
        "ACCESS_TOKEN_SIGNING_KEY: must be a P-256 private key as JWK JSON or PKCS#8 PEM: ",
      );
      expect(message, value).toContain(reason);
      expect(message).not.toContain(ed.d);
      expect(message).not.toContain(key.d);
    }
  });
});
