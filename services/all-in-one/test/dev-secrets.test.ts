import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envPrefixOf } from "@attesto/runtime/config";
import { parseServiceIdentityKey, SERVICE_IDENTITIES } from "@attesto/runtime/rpc";
import { afterEach, describe, expect, it } from "vitest";
import { developmentSecrets, SECRETS_FILE } from "../src/dev-secrets.js";

const IDENTITY_KEYS = SERVICE_IDENTITIES.map((name) => `${envPrefixOf(name)}_SERVICE_IDENTITY_KEY`);

describe("developmentSecrets", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "attesto-secrets-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("generates the missing secrets once, privately, and returns the same ones after a restart", () => {
    const dir = join(tempDir(), "data");
    const first = developmentSecrets(dir, {});
    expect(first.generated).toEqual([
      "KEY_ENCRYPTION_KEYS",
      "TRUST_REGISTRY_LOGIN_TOKEN_SECRET",
      "CREDENTIAL_ISSUER_NONCE_SECRET",
      "AUTH_SERVER_DPOP_NONCE_SECRET",
      "HOLDER_HOLDER_TOKEN_SECRET",
      "AUTH_SERVER_ACCESS_TOKEN_SIGNING_KEY",
      "HOLDER_WALLET_PROVIDER_KEY",
      ...IDENTITY_KEYS,
    ]);
    expect(IDENTITY_KEYS).toContain("OPERATOR_SERVICE_IDENTITY_KEY");
    for (const name of IDENTITY_KEYS) expect(() => parseServiceIdentityKey(first.values[name]!)).not.toThrow();
    expect(new Set(IDENTITY_KEYS.map((name) => first.values[name])).size).toBe(IDENTITY_KEYS.length);
    expect(first.values.KEY_ENCRYPTION_KEYS).toMatch(/^dev1:[A-Za-z0-9_-]{43}$/);
    expect(first.values.TRUST_REGISTRY_LOGIN_TOKEN_SECRET).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(first.values.AUTH_SERVER_ACCESS_TOKEN_SIGNING_KEY!)).toMatchObject({ kty: "EC", crv: "P-256" });
    expect(statSync(join(dir, SECRETS_FILE)).mode & 0o777).toBe(0o600);

    expect(developmentSecrets(dir, {})).toEqual({ values: first.values, generated: [] });
  });

  it("leaves alone what the environment sets, for every service or for the one that reads it", () => {
    const dir = tempDir();
    const env = {
      KEY_ENCRYPTION_KEYS: "k",
      LOGIN_TOKEN_SECRET: "l",
      CREDENTIAL_ISSUER_NONCE_SECRET: "n",
      AUTH_SERVER_DPOP_NONCE_SECRET: "d",
      HOLDER_TOKEN_SECRET: "h",
      ...Object.fromEntries(
        IDENTITY_KEYS.filter((name) => name !== "LEDGER_SERVICE_IDENTITY_KEY").map((n) => [n, "k"]),
      ),
      // One identity key for every service is no identity: only <PREFIX>_SERVICE_IDENTITY_KEY counts.
      SERVICE_IDENTITY_KEY: "shared",
    };
    const result = developmentSecrets(dir, env);
    expect(Object.keys(result.values)).toEqual([
      "AUTH_SERVER_ACCESS_TOKEN_SIGNING_KEY",
      "HOLDER_WALLET_PROVIDER_KEY",
      "LEDGER_SERVICE_IDENTITY_KEY",
    ]);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, SECRETS_FILE), "utf8")))).toEqual([
      "AUTH_SERVER_ACCESS_TOKEN_SIGNING_KEY",
      "HOLDER_WALLET_PROVIDER_KEY",
      "LEDGER_SERVICE_IDENTITY_KEY",
    ]);
  });

  it("refuses a damaged secrets file rather than replacing keys that encrypt data", () => {
    const dir = tempDir();
    writeFileSync(join(dir, SECRETS_FILE), "{not json");
    expect(() => developmentSecrets(dir, {})).toThrow(`${SECRETS_FILE} is unreadable`);
  });
});
