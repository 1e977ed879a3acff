import { STATUS_CODES } from "node:http";
import swagger from "@fastify/swagger";
import type { FastifySchema, RouteOptions } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import type { ErrorShape } from "../errors/app-error.js";
import type { App } from "./app.js";
import { DOCS_ROUTES } from "./docs-page.js";
import { exampleOf, hasExample } from "./openapi-examples.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Statuses this route answers besides its success and those the platform infers (400, 401, 403, 500). */
    answers?: readonly number[];
    /** The media type of a success body that is not JSON (a JWT, an SVG, an HTML page). */
    produces?: string;
    /** Errors are answered as HTML pages (a browser's consent pages), not JSON bodies. */
    errorPages?: boolean;
  }
}

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
const REQUEST_PARTS = ["body", "querystring", "params"] as const;

/** Whether a route's schema describes anything (a request part or a response). */
function describesSomething(schema: FastifySchema | undefined): boolean {
  return schema !== undefined && DESCRIBING_PARTS.some((part) => schema[part] !== undefined);
}

/** The error statuses a hook can answer (`requireApiKey`: 401, 403), as `answering` marks it. */
const ANSWERS = Symbol.for("attesto.openapi.answers");

/** Marks a hook with the error statuses it can answer, so every route using it documents them. */
export function answering<T extends object>(hook: T, statuses: readonly number[]): T {
  Object.defineProperty(hook, ANSWERS, { value: statuses });
  return hook;
}

const answersOf = (hooks: unknown): number[] =>
  (Array.isArray(hooks) ? hooks : [hooks]).flatMap(
    (hook) => ((hook as Record<symbol, readonly number[]> | undefined)?.[ANSWERS] ?? []) as number[],
  );

interface RouteErrors {
  statuses: Set<number>;
  shape: ErrorShape;
  produces?: string;
  errorPages?: boolean;
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

/** `/v1/offers/:offerId` as OpenAPI writes it: `/v1/offers/{offerId}`. */
const openApiPathOf = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

const ERROR_CODE_EXAMPLE: Record<number, string> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  410: "gone",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
  500: "server_error",
  503: "unavailable",
};

const fieldErrorsSchema = {
  type: "array",
  description: "A validation failure: every failing field, one entry each",
  items: {
    type: "object",
    required: ["field", "message"],
    properties: {
      field: { type: "string", description: "Dotted path of the field, or body/query/path for the whole part" },
      message: { type: "string", description: "What is wrong, without the field name" },
    },
  },
};

/** The body of an error answer in either wire shape (root README "Error answers", docs/http-api.md). */
function errorBodySchema(shape: ErrorShape) {
  const text = shape === "oauth" ? "error_description" : "message";
  return {
    type: "object",
    required: ["error", text],
    properties: {
      error: { type: "string", description: "Stable machine code" },
      [text]: { type: "string", description: "Safe to show; never echoes the request" },
      errors: fieldErrorsSchema,
    },
  };
}

function errorExample(status: number, shape: ErrorShape) {
  const error = ERROR_CODE_EXAMPLE[status] ?? "invalid_request";
  const text = status === 400 ? "name is required" : (STATUS_CODES[status] ?? "Error");
  const body: Record<string, unknown> =
    shape === "oauth" ? { error, error_description: text } : { error, message: text };
  if (status === 400) body.errors = [{ field: "name", message: "is required" }];
  return body;
}

type Json = Record<string, unknown>;

/**
 * Completes the generated document: each response is described by its status text (not "Default
 * Response"), and each operation lists every error status it can answer with the body of its
 * error shape and an example.
 */
function completeDocument(document: Json, errorsByOperation: ReadonlyMap<string, RouteErrors>): Json {
  const completed = structuredClone(document) as Json & { paths?: Record<string, Record<string, Json>> };
  for (const [path, operations] of Object.entries(completed.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      const errors = errorsByOperation.get(`${method.toUpperCase()} ${path}`);
      const otherSuccess = [...(errors?.statuses ?? [])].some((status) => status > 200 && status < 400);
      const phantom = responses["200"];
      if (otherSuccess && !errors?.produces && phantom?.description === "Default Response" && !phantom.content) {
        // The generator's 200 of a route without a response schema that answers 204, or redirects
        // (a route that `produces` a body of its own type answers that 200: its content comes below).
        delete responses["200"];
      }
      for (const [status, response] of Object.entries(responses)) {
        if (!response.description || response.description === "Default Response") {
          response.description = STATUS_CODES[Number(status)] ?? "Response";
        }
        if (errors?.produces && status.startsWith("2")) {
          // A JSON schema served under its own media type (a DID resolution result), or a text body.
          const content = response.content as Record<string, Json> | undefined;
          const schema = content?.["application/json"]?.schema ?? { type: "string" };
          response.content = { [errors.produces]: { schema } };
        }
      }
      for (const status of [...(errors?.statuses ?? [500])].sort()) {
        if (responses[String(status)]) continue;
        if (status < 400) {
          responses[String(status)] = { description: STATUS_CODES[status] ?? "Response" };
          continue;
        }
        if (errors?.errorPages) {
          responses[String(status)] = {
            description: STATUS_CODES[status] ?? "Error",
            content: { "text/html": { schema: { type: "string", description: "An error page" } } },
          };
          continue;
        }
        const shape = errors?.shape ?? "api";
        responses[String(status)] = {
          description: STATUS_CODES[status] ?? "Error",
          content: { "application/json": { schema: errorBodySchema(shape), example: errorExample(status, shape) } },
        };
      }
      operation.responses = responses;
      addExamples(operation, completed);
    }
  }
  return completed;
}

/** Every request body and success body without an example gets one made from its schema (`exampleOf`). */
function addExamples(operation: Json, document: Json): void {
  const bodies = [
    (operation.requestBody as Json | undefined)?.content,
    ...Object.entries((operation.responses ?? {}) as Record<string, Json>)
      .filter(([status]) => status.startsWith("2") || status.startsWith("3"))
      .map(([, response]) => response.content),
  ] as Array<Record<string, Json> | undefined>;
  for (const content of bodies) {
    for (const [mediaType, media] of Object.entries(content ?? {})) {
      if (!hasExample(media)) media.example = exampleOf(media.schema as Json | undefined, mediaType, [document]);
    }
  }
}

/**
 * The OpenAPI 3.1 document of a public port, generated from the routes' zod schemas and served at
 * `GET /openapi.json`. Call before any route is added: routes are collected as they are registered.
 */
export async function registerOpenApi(app: App, options: OpenApiOptions): Promise<void> {
  const missing: string[] = [];
  // Read when the document is first asked for: a scope's onRoute hooks (answersInScope) run after ours.
  const routes: RouteOptions[] = [];
  withoutSchema.set(app, missing);
  app.addHook("onRoute", (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === "HEAD") continue; // the twin of a GET route, with its schema
      const name = `${method} ${route.url}`;
      if (!ROUTES_EXEMPT_FROM_SCHEMA.includes(name) && !describesSomething(route.schema)) missing.push(name);
    }
    routes.push(route);
  });
  await app.register(swagger, {
    openapi: {
      openapi: OPENAPI_VERSION,
      info: { title: `Attesto ${options.service} API`, version: options.version },
      servers: options.publicUrl ? [{ url: options.publicUrl }] : [],
    },
    transform: jsonSchemaTransform,
  });
  let completed: Json | undefined;
  app.get(OPENAPI_PATH, { logLevel: "warn", schema: { hide: true } }, async (_request, reply) => {
    reply.header("cache-control", "no-cache");
    completed ??= completeDocument(app.swagger() as unknown as Json, errorsOf(routes));
    return completed;
  });
}

/** The error statuses and shape of every operation (`METHOD /openapi/{path}`). */
function errorsOf(routes: readonly RouteOptions[]): Map<string, RouteErrors> {
  const errors = new Map<string, RouteErrors>();
  for (const route of routes) {
    const statuses = new Set<number>([500, ...answersOf(route.onRequest), ...answersOf(route.preHandler)]);
    for (const status of route.config?.answers ?? []) statuses.add(status);
    if (REQUEST_PARTS.some((part) => route.schema?.[part] !== undefined)) statuses.add(400);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      errors.set(`${method} ${openApiPathOf(route.url)}`, {
        statuses,
        shape: route.config?.errorShape ?? "api",
        produces: route.config?.produces,
        errorPages: route.config?.errorPages,
      });
    }
  }
  return errors;
}

/**
 * Documents error statuses every route of a scope answers (a scope-wide hook such as a login
 * token check: 401): call on the scope before its routes are added.
 */
export function answersInScope(scope: App, statuses: readonly number[]): void {
  scope.addHook("onRoute", (route: RouteOptions) => {
    route.config = { ...route.config, answers: [...(route.config?.answers ?? []), ...statuses] };
  });
}

/**
 * Route options for a route whose body schema Fastify does not apply before the handler: the
 * handler applies the same schema itself (`parseFields`) after the checks that come first, because
 * its error answers are a protocol contract (OID4VCI's `invalid_credential_request` after the access
 * token, RFC 6749's `invalid_request` after client authentication).
 */
export const documentedOnly = {
  validatorCompiler: () => (value: unknown) => ({ value }),
} as const;
