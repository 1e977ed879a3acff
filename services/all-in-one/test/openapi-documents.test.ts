import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, OPENAPI_VERSION, routesWithoutSchema } from "@attesto/runtime/http";
import { createServiceContext, readinessChecksOf, registerReadinessRoute } from "@attesto/runtime/service";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { developmentSecrets, identityPublicKeysOf } from "../src/dev-secrets.js";
import { buildServiceEnv, planAddresses } from "../src/service-env.js";
import { platformServices } from "../src/services.js";

/**
 * Every public port of the platform, built in process as `launchService` builds it (its routes,
 * then `/ready`), without listening: every route describes itself with a schema, and the OpenAPI
 * 3.1 document generated from them is valid.
 */
describe("OpenAPI documents of every public port", () => {
  let dataDir: string;
  let database: TestDatabase<unknown>;
  const apps = new Map<string, App>();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "attesto-openapi-"));
    database = await createTestDatabase({ prefix: "openapi" });
    const env = { ...process.env, ...developmentSecrets(dataDir, process.env).values };
    const addresses = planAddresses(platformServices, { host: "127.0.0.1", portOffset: 0 }, env);
    for (const [i, module] of platformServices.entries()) {
      const config = module.loadConfig(
        buildServiceEnv({
          address: addresses[i]!,
          addresses,
          env,
          logLevel: "silent",
          databaseUrl: database.url,
          serviceIdentityPublicKeys: identityPublicKeysOf(env),
        }),
      );
      const context = createServiceContext(module.definition, config, database.db);
      const app = await module.definition.buildApp(context);
      registerReadinessRoute(app, readinessChecksOf(module.definition, config, database.db), 1000);
      await app.ready();
      apps.set(module.definition.name, app);
    }
  });

  afterAll(async () => {
    for (const app of apps.values()) await app.close();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("builds every service", () => {
    expect([...apps.keys()].sort()).toEqual(platformServices.map((module) => module.definition.name).sort());
  });

  it("has a schema on every route", () => {
    const missing = [...apps].flatMap(([service, app]) =>
      routesWithoutSchema(app).map((route) => `${service}: ${route}`),
    );
    expect(missing).toEqual([]);
  });

  it("generates a valid OpenAPI 3.1 document per service, with its title, version and public URL", async () => {
    for (const [service, app] of apps) {
      const response = await app.inject({ method: "GET", url: "/openapi.json" });
      expect(response.statusCode, service).toBe(200);
      const document = response.json();
      expect(document.openapi, service).toBe(OPENAPI_VERSION);
      expect(document.info.title, service).toBe(`Attesto ${service} API`);
      expect(document.info.version, service).toMatch(/^\d+\.\d+\.\d+/);
      expect(document.servers, service).toEqual([{ url: expect.stringMatching(/^http:\/\/localhost:\d+$/) }]);
      const validator = new Validator();
      const result = await validator.validate(document);
      expect({ service, valid: result.valid, errors: result.errors }).toEqual({
        service,
        valid: true,
        errors: undefined,
      });
      expect(validator.version).toBe("3.1");
      expect(Object.keys(document.paths), service).toContain("/health");
      expect(Object.keys(document.paths), service).not.toContain("/openapi.json");
    }
  });
});
