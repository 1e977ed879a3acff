import { ConfigError } from "@attesto/runtime/config";
import { testIdentityEnv } from "@attesto/runtime/testing";
import { describe, expect, it } from "vitest";
import { loadLedgerConfig } from "../src/config.js";

const base = { DATABASE_URL: "postgres://localhost/x", ...testIdentityEnv("ledger") };

describe("ledger configuration", () => {
  it("defaults to a 1 s checkpoint interval, on-read checkpoints and a generated key", () => {
    const config = loadLedgerConfig(base);
    expect(config.LEDGER_SIGNING_KEY).toBeUndefined();
    expect(config).toMatchObject({
      PORT: 8088,
      INTERNAL_PORT: 9088,
      DATABASE_SCHEMA: "ledger",
      LEDGER_CHECKPOINT_INTERVAL_MS: 1000,
      LEDGER_CHECKPOINT_ON_READ: true,
    });
  });

  it("accepts a base64url Ed25519 seed and refuses anything else without echoing it", () => {
    const seed = Buffer.alloc(32, 1).toString("base64url");
    expect(loadLedgerConfig({ ...base, LEDGER_SIGNING_KEY: seed }).LEDGER_SIGNING_KEY).toBe(seed);
    for (const bad of ["c2hvcnQ", `${seed}AA`, "not base64url!"]) {
      const load = () => loadLedgerConfig({ ...base, LEDGER_SIGNING_KEY: bad });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow("LEDGER_SIGNING_KEY: must be a base64url Ed25519 private key (32-byte seed)");
      expect(load).not.toThrow(bad);
    }
  });

  it("refuses a checkpoint interval that is not a positive number of milliseconds", () => {
    expect(() => loadLedgerConfig({ ...base, LEDGER_CHECKPOINT_INTERVAL_MS: "0" })).toThrow(ConfigError);
    expect(() => loadLedgerConfig({ ...base, LEDGER_CHECKPOINT_ON_READ: "maybe" })).toThrow(ConfigError);
  });
});
