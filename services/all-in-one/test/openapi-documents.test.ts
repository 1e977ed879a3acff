import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, OPENAPI_VERSION, routesWithoutSchema } from "@attesto/runtime/http";
import { createServiceContext, readinessChecksOf, registerReadinessRoute } from "@attesto/runtime/service";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { developmentSecrets, identityPublicKeysOf } from "../src/dev-secrets.js";
import { buildServiceEnv, planAddresses } from "../src/service-env.js";
import { platformServices } from "../src/services.js";

interface Media {
  schema?: Record<string, unknown> & { examples?: unknown[] };
  example?: unknown;
  /** Several examples, by name (the generator's form of a schema's `examples` array). */
  examples?: Record<string, { value: unknown }>;
}

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

  it("documents every operation's success body with a schema and an example that matches it", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const problems: string[] = [];
    for (const [service, app] of apps) {
      const document = (await app.inject({ method: "GET", url: "/openapi.json" })).json() as {
        paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, Media> }> }>>;
      };
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          const name = `${service} ${method.toUpperCase()} ${path}`;
          const successes = Object.entries(operation.responses).filter(([status]) => /^[23]/.test(status));
          if (successes.length === 0) problems.push(`${name}: no success status`);
          for (const [status, response] of successes) {
            // No body: 204 and redirects only.
            if (!response.content) {
              if (status !== "204" && !status.startsWith("3")) problems.push(`${name} ${status}: no body documented`);
              continue;
            }
            for (const [mediaType, media] of Object.entries(response.content)) {
              const where = `${name} ${status} ${mediaType}`;
              if (!media.schema) problems.push(`${where}: no schema`);
              const example =
                media.example ?? Object.values(media.examples ?? {})[0]?.value ?? media.schema?.examples?.[0];
              if (example === undefined) problems.push(`${where}: no example`);
              else if (media.schema && !ajv.validate(media.schema, example)) {
                problems.push(`${where}: the example does not match the schema: ${ajv.errorsText(ajv.errors)}`);
              }
            }
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("keeps the 200 of a route that also answers 304 or redirects, with its own body type", async () => {
    const documentOf = async (service: string) =>
      (await apps.get(service)!.inject({ method: "GET", url: "/openapi.json" })).json();
    const auth = await documentOf("auth-server");
    expect(Object.keys(auth.paths["/v1/authorize"].get.responses["200"].content)).toEqual(["text/html"]);
    expect(auth.paths["/v1/authorize"].get.responses["303"]).toBeDefined();
    const issuer = await documentOf("credential-issuer");
    const statusList = issuer.paths["/status-lists/{tenant}/{listId}"].get.responses;
    expect(Object.keys(statusList["200"].content)).toEqual(["application/statuslist+jwt"]);
    expect(statusList["304"]).toBeDefined();
  });
});
