import { ConfigError } from "@attesto/runtime/config";
import { testIdentityEnv } from "@attesto/runtime/testing";
import { describe, expect, it } from "vitest";
import { loadCredentialIssuerConfig } from "../src/config.js";

const required = {
  DATABASE_URL: "postgres://localhost/test",
  ...testIdentityEnv("credential-issuer"),
  NONCE_SECRET: "n".repeat(32),
  KEY_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 1).toString("base64url")}`,
};

describe("credential issuer configuration", () => {
  it("CREDENTIAL_DPOP_NONCE_STATUS: 401 by default (RFC 9449), 400 on request, nothing else", () => {
    expect(loadCredentialIssuerConfig(required).CREDENTIAL_DPOP_NONCE_STATUS).toBe(401);
    const legacy = loadCredentialIssuerConfig({ ...required, CREDENTIAL_DPOP_NONCE_STATUS: "400" });
    expect(legacy.CREDENTIAL_DPOP_NONCE_STATUS).toBe(400);
    expect(() => loadCredentialIssuerConfig({ ...required, CREDENTIAL_DPOP_NONCE_STATUS: "403" })).toThrow(
      /CREDENTIAL_DPOP_NONCE_STATUS must be 401 or 400/,
    );
  });

  it("has defaults for every URL and lifetime", () => {
    const config = loadCredentialIssuerConfig(required);
    expect(config).toMatchObject({
      PORT: 8082,
      INTERNAL_PORT: 9082,
      DATABASE_SCHEMA: "credential_issuer",
      AUTH_SERVER_URL: "http://localhost:8081",
      AUTH_SERVER_JWKS_URL: "http://localhost:8081/.well-known/jwks.json",
      TRUST_REGISTRY_INTERNAL_URL: "http://localhost:9085",
      SCHEMA_REGISTRY_INTERNAL_URL: "http://localhost:9086",
      LEDGER_INTERNAL_URL: "http://localhost:9088",
      C_NONCE_TTL_SECONDS: 300,
      CREDENTIAL_TTL_SECONDS: 365 * 24 * 3600,
    });
    expect(config.DPOP_NONCE_SECRET).toBeUndefined();
    expect(config.KEY_ENCRYPTION_KEYS).toEqual([{ id: "k1", key: new Uint8Array(Buffer.alloc(32, 1)) }]);
  });

  it("derives the JWKS URL from AUTH_SERVER_URL (without a trailing slash) unless set", () => {
    expect(loadCredentialIssuerConfig({ ...required, AUTH_SERVER_URL: "https://as.example/" })).toMatchObject({
      AUTH_SERVER_URL: "https://as.example",
      AUTH_SERVER_JWKS_URL: "https://as.example/.well-known/jwks.json",
    });
    expect(
      loadCredentialIssuerConfig({ ...required, AUTH_SERVER_JWKS_URL: "https://keys.example/jwks" })
        .AUTH_SERVER_JWKS_URL,
    ).toBe("https://keys.example/jwks");
  });

  it("requires the nonce secret and key-encryption keys, and checks lengths and ranges", () => {
    const problems = (env: Record<string, string | undefined>) => {
      try {
        loadCredentialIssuerConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      return "";
    };
    expect(problems({ ...required, NONCE_SECRET: undefined })).toContain("NONCE_SECRET");
    expect(problems({ ...required, NONCE_SECRET: "short" })).toContain("NONCE_SECRET must be at least 32 characters");
    expect(problems({ ...required, KEY_ENCRYPTION_KEYS: undefined })).toContain("KEY_ENCRYPTION_KEYS");
    expect(problems({ ...required, DPOP_NONCE_SECRET: "short" })).toContain("DPOP_NONCE_SECRET must be at least 32");
    expect(problems({ ...required, C_NONCE_TTL_SECONDS: "0" })).toContain("C_NONCE_TTL_SECONDS");
    expect(problems({ ...required, CREDENTIAL_TTL_SECONDS: "abc" })).toContain("CREDENTIAL_TTL_SECONDS");
  });
});
