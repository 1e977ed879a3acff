import { type App, createApp, DOCS_ROUTES, routesWithoutSchema } from "@attesto/runtime/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const config = {
  LOG_LEVEL: "silent",
  BODY_LIMIT_BYTES: 2048,
  REQUEST_TIMEOUT_MS: 5000,
  CORS_ORIGINS: "*",
  TRUST_PROXY: false,
} as const;

/** `GET /docs` of every public port (Chromium renders it in test/browser/docs-pages.test.ts). */
describe("docs page", () => {
  let app: App;

  beforeAll(async () => {
    app = await createApp({
      service: "test-service",
      version: "1.2.3",
      config,
      publicUrl: "https://api.example.test/base",
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it("serves the page with relative asset and document URLs and a CSP that allows only this server and the public URL", async () => {
    const response = await app.inject({ method: "GET", url: "/docs" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(response.body).toContain("<title>Attesto test-service API</title>");
    expect(response.body).toContain('<link rel="stylesheet" href="docs/swagger-ui.css">');
    expect(response.body).toContain('<script src="docs/swagger-ui-bundle.js"></script>');
    expect(response.body).toContain('<script src="docs/docs.js"></script>');
    expect(response.body).toContain('data-document="openapi.json"');
    expect(response.body).not.toMatch(/<script>|https?:\/\//);
    expect(response.headers["content-security-policy"]).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; " +
        "connect-src 'self' https://api.example.test; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });

  it("serves Swagger UI's bundle and stylesheet from node_modules, and the start script", async () => {
    const bundle = await app.inject({ method: "GET", url: "/docs/swagger-ui-bundle.js" });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers["content-type"]).toBe("application/javascript; charset=utf-8");
    expect(bundle.body).toContain("SwaggerUIBundle");
    const css = await app.inject({ method: "GET", url: "/docs/swagger-ui.css" });
    expect(css.statusCode).toBe(200);
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(css.body).toContain(".swagger-ui");
    const start = await app.inject({ method: "GET", url: "/docs/docs.js" });
    expect(start.statusCode).toBe(200);
    expect(start.body).toContain("validatorUrl: null");
    expect(start.body).toContain("persistAuthorization: false");
  });

  it("serves no other file", async () => {
    for (const url of ["/docs/index.html", "/docs/swagger-ui-bundle.js.map", "/docs/..%2fpackage.json", "/docs/"]) {
      expect((await app.inject({ method: "GET", url })).statusCode, url).toBe(404);
    }
  });

  it("stays out of the OpenAPI document and needs no schema", async () => {
    const document = (await app.inject({ method: "GET", url: "/openapi.json" })).json();
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/docs"))).toEqual([]);
    expect(routesWithoutSchema(app)).toEqual([]);
    expect(DOCS_ROUTES).toEqual([
      "GET /docs",
      "GET /docs/swagger-ui-bundle.js",
      "GET /docs/swagger-ui.css",
      "GET /docs/docs.js",
    ]);
  });
});
