import swagger from "@fastify/swagger";
import type { FastifySchema, RouteOptions } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import type { App } from "./create-app.js";
import { DOCS_ROUTES } from "./docs-page.js";

/** Where every public port serves its OpenAPI 3.1 document. */
export const OPENAPI_PATH = "/openapi.json";

/** The OpenAPI version of the documents. */
export const OPENAPI_VERSION = "3.1.0";

/**
 * Routes the framework adds itself and that need no schema: the document itself and the docs page
 * that renders it. Every other route must describe its request or response (`routesWithoutSchema`,
 * checked by the OpenAPI test).
 */
export const ROUTES_EXEMPT_FROM_SCHEMA: readonly string[] = [
  `GET ${OPENAPI_PATH}`,
  `HEAD ${OPENAPI_PATH}`,
  ...DOCS_ROUTES,
];

const DESCRIBING_PARTS = ["body", "querystring", "params", "headers", "response"] as const;

/** Whether a route's schema describes anything (a request part or a response). */
function describesSomething(schema: FastifySchema | undefined): boolean {
  return schema !== undefined && DESCRIBING_PARTS.some((part) => schema[part] !== undefined);
}

const withoutSchema = new WeakMap<object, string[]>();

/** `METHOD /path` of every route of `app` registered without a schema (exemptions left out). */
export function routesWithoutSchema(app: App): string[] {
  return [...(withoutSchema.get(app) ?? [])];
}

export interface OpenApiOptions {
  service: string;
  version: string;
  /** The public base URL clients reach the service at: the document's `servers`. */
  publicUrl?: string;
}

/**
 * The OpenAPI 3.1 document of a public port, generated from the routes' zod schemas and served at
 * `GET /openapi.json`. Call before any route is added: routes are collected as they are registered.
 */
export async function registerOpenApi(app: App, options: OpenApiOptions): Promise<void> {
  const missing: string[] = [];
  withoutSchema.set(app, missing);
  app.addHook("onRoute", (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === "HEAD") continue; // the twin of a GET route, with its schema
      const name = `${method} ${route.url}`;
      if (!ROUTES_EXEMPT_FROM_SCHEMA.includes(name) && !describesSomething(route.schema)) missing.push(name);
    }
  });
  await app.register(swagger, {
    openapi: {
      openapi: OPENAPI_VERSION,
      info: { title: `Attesto ${options.service} API`, version: options.version },
      servers: options.publicUrl ? [{ url: options.publicUrl }] : [],
    },
    transform: jsonSchemaTransform,
  });
  app.get(OPENAPI_PATH, { logLevel: "warn", schema: { hide: true } }, async (_request, reply) => {
    reply.header("cache-control", "no-cache");
    return app.swagger();
  });
}

/**
 * Route options for a route whose schema documents the request but does not validate it: the
 * domain does, because its error answers are a protocol contract (OID4VCI's
 * `invalid_credential_request`, RFC 6749's `invalid_request` after client authentication).
 */
export const documentedOnly = {
  validatorCompiler: () => (value: unknown) => ({ value }),
} as const;
