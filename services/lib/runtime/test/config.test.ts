import { baseConfigShape, ConfigError, loadConfig, publicUrlOf } from "@attesto/runtime/config";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { testIdentityEnv } from "../src/testing.js";

const schema = z.object(baseConfigShape({ port: 8086, internalPort: 9086, databaseSchema: "schema_registry" }));
const identity = testIdentityEnv("schema-registry");

describe("loadConfig", () => {
  it("applies documented defaults", () => {
    const config = loadConfig(schema, { DATABASE_URL: "postgres://localhost/x", ...identity });
    expect(config).toMatchObject({
      HOST: "0.0.0.0",
      PORT: 8086,
      INTERNAL_PORT: 9086,
      DATABASE_SCHEMA: "schema_registry",
      BODY_LIMIT_BYTES: 1048576,
      SHUTDOWN_GRACE_MS: 10000,
      TRUST_PROXY: false,
      LOG_LEVEL: "info",
    });
    expect(publicUrlOf(config)).toBe("http://localhost:8086");
  });

  it("names every bad variable in one error", () => {
    const bad = { PORT: "abc", SERVICE_IDENTITY_KEY: "short", TRUST_PROXY: "maybe" };
    expect(() => loadConfig(schema, bad)).toThrow(ConfigError);
    const message = (() => {
      try {
        loadConfig(schema, bad);
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toContain("PORT:");
    expect(message).toContain("DATABASE_URL:");
    expect(message).toContain("SERVICE_IDENTITY_KEY: the service identity key is not valid JSON");
    expect(message).toContain("SERVICE_IDENTITY_PUBLIC_KEYS: SERVICE_IDENTITY_PUBLIC_KEYS is required");
  });

  it("treats empty variables as unset and trims the public URL", () => {
    const config = loadConfig(schema, {
      DATABASE_URL: "postgres://localhost/x",
      ...identity,
      PORT: "",
      PUBLIC_URL: "https://schemas.example.com/",
      TRUST_PROXY: "true",
    });
    expect(config.PORT).toBe(8086);
    expect(config.TRUST_PROXY).toBe(true);
    expect(publicUrlOf(config)).toBe("https://schemas.example.com");
  });
});
