import { describe, expect, it } from "vitest";
import { buildServiceEnv, discoveryEnv, localHostOf, overridesOf, planAddresses } from "../src/service-env.js";

const services = [
  { definition: { name: "auth-server" }, ports: { public: 8081, internal: 9081 } },
  { definition: { name: "schema-registry" }, ports: { public: 8086, internal: 9086 } },
];

describe("planAddresses", () => {
  it("shifts the default ports (root README) by PORT_OFFSET and defaults URLs to localhost", () => {
    const [auth, schema] = planAddresses(services, { host: "127.0.0.1", portOffset: 20000 }, {});
    expect(auth).toEqual({
      name: "auth-server",
      prefix: "AUTH_SERVER",
      host: "127.0.0.1",
      port: 28081,
      internalPort: 29081,
      publicUrl: "http://localhost:28081",
      internalUrl: "http://localhost:29081",
      healthUrls: { public: "http://localhost:28081/health", internal: "http://localhost:29081/health" },
    });
    expect(schema?.publicUrl).toBe("http://localhost:28086");
  });

  it("honours a service's own PORT, INTERNAL_PORT, PUBLIC_URL and HOST", () => {
    const env = {
      SCHEMA_REGISTRY_PORT: "7000",
      SCHEMA_REGISTRY_INTERNAL_PORT: "7001",
      SCHEMA_REGISTRY_PUBLIC_URL: "https://schemas.example.com/",
      SCHEMA_REGISTRY_HOST: "0.0.0.0",
    };
    const [, schema] = planAddresses(services, { host: "127.0.0.1", portOffset: 0 }, env);
    expect(schema).toMatchObject({
      host: "0.0.0.0",
      port: 7000,
      internalPort: 7001,
      publicUrl: "https://schemas.example.com",
      internalUrl: "http://localhost:7001",
      healthUrls: { public: "http://localhost:7000/health" },
    });
  });

  it("rejects a port override that is not a port, naming the variable", () => {
    expect(() => planAddresses(services, { host: "127.0.0.1", portOffset: 0 }, { AUTH_SERVER_PORT: "80a" })).toThrow(
      "AUTH_SERVER_PORT: must be a port number",
    );
  });
});

describe("buildServiceEnv", () => {
  const addresses = planAddresses(services, { host: "127.0.0.1", portOffset: 0 }, {});
  const build = (env: Record<string, string>) =>
    buildServiceEnv({
      address: addresses[1]!,
      addresses,
      env,
      logLevel: "warn",
      databaseUrl: "postgres://db/attesto",
      serviceIdentityPublicKeys: '{"keys":[]}',
    });

  it("layers process env, the service's overrides, then the launcher's own values", () => {
    const env = build({
      KEY_ENCRYPTION_KEY: "inherited",
      SCHEMA_REGISTRY_LOG_LEVEL: "debug",
      SCHEMA_REGISTRY_DATABASE_SCHEMA: "schemas_custom",
      SCHEMA_REGISTRY_PORT: "1234",
      AUTH_SERVER_LOG_LEVEL: "trace",
      DATABASE_URL: "postgres://ignored/overridden",
      SCHEMA_REGISTRY_SERVICE_IDENTITY_KEY: "the schema registry's own key",
      AUTH_SERVER_SERVICE_IDENTITY_KEY: "another service's key",
      SERVICE_IDENTITY_KEY: "one key for every service: ignored",
      SERVICE_IDENTITY_PUBLIC_KEYS: "ignored: the launcher decides",
    });
    expect(env).toMatchObject({
      KEY_ENCRYPTION_KEY: "inherited",
      LOG_LEVEL: "debug",
      DATABASE_SCHEMA: "schemas_custom",
      HOST: "127.0.0.1",
      PORT: "8086",
      INTERNAL_PORT: "9086",
      DATABASE_URL: "postgres://db/attesto",
      SERVICE_IDENTITY_KEY: "the schema registry's own key",
      SERVICE_IDENTITY_PUBLIC_KEYS: '{"keys":[]}',
      AUTH_SERVER_URL: "http://localhost:8081",
      AUTH_SERVER_INTERNAL_URL: "http://localhost:9081",
      SCHEMA_REGISTRY_URL: "http://localhost:8086",
      SCHEMA_REGISTRY_INTERNAL_URL: "http://localhost:9086",
    });
  });

  it("lets outbound requests reach the platform's own loopback public origins, and what OUTBOUND_ALLOW_HOSTS adds", () => {
    expect(build({}).OUTBOUND_ALLOW_HOSTS).toBe("localhost:8081,localhost:8086");
    expect(build({ OUTBOUND_ALLOW_HOSTS: "hooks.lan:9000" }).OUTBOUND_ALLOW_HOSTS).toBe(
      "hooks.lan:9000,localhost:8081,localhost:8086",
    );
    expect(build({ SCHEMA_REGISTRY_OUTBOUND_ALLOW_HOSTS: "only.lan:1" }).OUTBOUND_ALLOW_HOSTS).toBe("only.lan:1");
  });

  it("has the auth server alone trust the demo wallet provider while every listener is on loopback", () => {
    const buildFor = (index: number, env: Record<string, string>, host = "127.0.0.1") => {
      const planned = planAddresses(services, { host, portOffset: 0 }, {});
      return buildServiceEnv({
        address: planned[index]!,
        addresses: planned,
        env,
        logLevel: "warn",
        databaseUrl: "postgres://db/attesto",
        serviceIdentityPublicKeys: '{"keys":[]}',
      });
    };
    expect(buildFor(0, {}).CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER).toBe("true");
    expect(buildFor(1, {}).CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER).toBeUndefined();
    expect(buildFor(0, {}, "0.0.0.0").CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER).toBeUndefined();
    expect(
      buildFor(0, { AUTH_SERVER_CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: "false" })
        .CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER,
    ).toBe("false");
  });

  it("does not hand one service's variables (PUBLIC_URL, DATABASE_SCHEMA) to every service", () => {
    const env = build({ PUBLIC_URL: "https://one.example", DATABASE_SCHEMA: "shared", PORT: "3000" });
    expect(env.PUBLIC_URL).toBeUndefined();
    expect(env.DATABASE_SCHEMA).toBeUndefined();
    expect(env.PORT).toBe("8086");
  });

  it("points every service at the launcher's URLs even when the environment names others", () => {
    expect(build({ AUTH_SERVER_URL: "http://elsewhere" }).AUTH_SERVER_URL).toBe("http://localhost:8081");
  });
});

describe("helpers", () => {
  it("overridesOf strips the prefix and skips empty values", () => {
    expect(overridesOf("LEDGER", { LEDGER_PORT: "1", LEDGER_: "x", LEDGER_HOST: "", LEDGERX_PORT: "2" })).toEqual({
      PORT: "1",
    });
  });

  it("localHostOf maps wildcard and loopback binds to localhost", () => {
    expect(["0.0.0.0", "::", "127.0.0.1"].map(localHostOf)).toEqual(["localhost", "localhost", "localhost"]);
    expect(localHostOf("10.0.0.5")).toBe("10.0.0.5");
    expect(localHostOf("fd00::1")).toBe("[fd00::1]");
  });

  it("discoveryEnv names both URLs of every service", () => {
    const addresses = planAddresses(services, { host: "0.0.0.0", portOffset: 1 }, {});
    expect(discoveryEnv(addresses)).toEqual({
      AUTH_SERVER_URL: "http://localhost:8082",
      AUTH_SERVER_INTERNAL_URL: "http://localhost:9082",
      SCHEMA_REGISTRY_URL: "http://localhost:8087",
      SCHEMA_REGISTRY_INTERNAL_URL: "http://localhost:9087",
    });
  });
});
