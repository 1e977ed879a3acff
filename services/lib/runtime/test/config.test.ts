import { describe, expect, it } from "vitest";
import { z } from "zod";
import { baseConfigShape, ConfigError, loadConfig, publicUrlOf } from "../src/index.js";

const schema = z.object(baseConfigShape({ port: 8086, internalPort: 9086, databaseSchema: "schema_registry" }));
const secret = "s".repeat(32);

describe("loadConfig", () => {
  it("applies documented defaults", () => {
    const config = loadConfig(schema, { DATABASE_URL: "postgres://localhost/x", SERVICE_AUTH_SECRET: secret });
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
    expect(() => loadConfig(schema, { PORT: "abc", SERVICE_AUTH_SECRET: "short", TRUST_PROXY: "maybe" })).toThrow(
      ConfigError,
    );
    try {
      loadConfig(schema, { PORT: "abc", SERVICE_AUTH_SECRET: "short" });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain("PORT:");
      expect(message).toContain("DATABASE_URL:");
      expect(message).toContain("SERVICE_AUTH_SECRET must be at least 32 characters");
    }
  });

  it("treats empty variables as unset and trims the public URL", () => {
    const config = loadConfig(schema, {
      DATABASE_URL: "postgres://localhost/x",
      SERVICE_AUTH_SECRET: secret,
      PORT: "",
      PUBLIC_URL: "https://schemas.example.com/",
      TRUST_PROXY: "true",
    });
    expect(config.PORT).toBe(8086);
    expect(config.TRUST_PROXY).toBe(true);
    expect(publicUrlOf(config)).toBe("https://schemas.example.com");
  });
});
