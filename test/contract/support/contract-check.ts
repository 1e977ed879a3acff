import { STATUS_CODES } from "node:http";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Exchange } from "./exchange-recorder.js";

/**
 * Checks real exchanges against the OpenAPI 3.1 documents the services serve: each exchange must
 * hit a documented operation, answer a documented status, and its JSON bodies must match the
 * documented schemas (the response always, the request when the server accepted it). Every
 * mismatch is returned as one line naming the operation and what differs.
 */

interface MediaType {
  schema?: Record<string, unknown>;
}
interface Operation {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}
export type OpenApiDocument = { paths?: Record<string, Record<string, Operation>> };

/** `/v1/offers/{offerId}` -> a pattern matching one path segment per parameter. */
const templatePattern = (template: string) =>
  new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`);

/** The documented path template of a concrete path: literal templates before parameterised ones. */
function templateOf(document: OpenApiDocument, path: string): string | undefined {
  const templates = Object.keys(document.paths ?? {});
  const literal = templates.find((template) => template === path);
  if (literal) return literal;
  const matching = templates.filter((template) => templatePattern(template).test(path));
  // The most specific: the fewest parameters.
  return matching.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))[0];
}

const mediaTypeOf = (contentType: string | undefined) => contentType?.split(";")[0]?.trim().toLowerCase();

function parseBody(contentType: string | undefined, body: string): { value?: unknown; parsed: boolean } {
  const type = mediaTypeOf(contentType);
  if (type === "application/json" || type?.endsWith("+json")) {
    try {
      return { value: JSON.parse(body), parsed: true };
    } catch {
      return { parsed: false };
    }
  }
  if (type === "application/x-www-form-urlencoded") {
    return { value: Object.fromEntries(new URLSearchParams(body)), parsed: true };
  }
  return { parsed: false };
}

export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly compiled = new Map<object, ValidateFunction>();

  constructor(private readonly documents: ReadonlyMap<string, OpenApiDocument>) {
    addFormats.default(this.ajv);
  }

  private validatorOf(schema: Record<string, unknown>): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    return validate;
  }

  private schemaProblems(schema: Record<string, unknown> | undefined, value: unknown): string | undefined {
    if (!schema) return undefined;
    const validate = this.validatorOf(schema);
    if (validate(value)) return undefined;
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((error) => `${error.instancePath || "/"} ${error.message}`)
      .join(", ");
  }

  /** `METHOD origin/template` of every documented operation no exchange reached. */
  operationsNotReached(exchanges: readonly Exchange[]): string[] {
    const reached = new Set(
      exchanges.map((exchange) => {
        const document = this.documents.get(exchange.url.origin);
        const template = document ? templateOf(document, exchange.url.pathname) : undefined;
        const method = exchange.method === "HEAD" ? "get" : exchange.method.toLowerCase();
        return `${method} ${exchange.url.origin}${template}`;
      }),
    );
    return [...this.documents].flatMap(([origin, document]) =>
      Object.entries(document.paths ?? {}).flatMap(([template, operations]) =>
        Object.keys(operations)
          .filter((method) => !reached.has(`${method} ${origin}${template}`))
          .map((method) => `${method.toUpperCase()} ${origin}${template}`),
      ),
    );
  }

  /** The mismatches of one exchange (empty when it keeps the contract). */
  check(exchange: Exchange): string[] {
    const document = this.documents.get(exchange.url.origin);
    const method = exchange.method === "HEAD" ? "get" : exchange.method.toLowerCase();
    const name = `${exchange.method} ${exchange.url.origin}${exchange.url.pathname}`;
    if (!document) return [`${name}: no document for ${exchange.url.origin}`];
    const template = templateOf(document, exchange.url.pathname);
    const operation = template ? document.paths?.[template]?.[method] : undefined;
    if (!template || !operation) return [`${name}: no such operation in the document`];
    const where = `${exchange.method} ${template} -> ${exchange.status}`;
    const problems: string[] = [];
    const response =
      operation.responses?.[String(exchange.status)] ??
      operation.responses?.[`${String(exchange.status)[0]}XX`] ??
      operation.responses?.default;
    if (!response) {
      problems.push(`${where}: status ${exchange.status} (${STATUS_CODES[exchange.status]}) is not documented`);
    } else if (exchange.method !== "HEAD" && exchange.responseBody !== "") {
      const type = mediaTypeOf(exchange.responseContentType);
      // Documented media types may carry parameters (`application/ld+json;profile=...`): compared without them.
      const content = Object.fromEntries(
        Object.entries(response.content ?? {}).map(([key, value]) => [mediaTypeOf(key) ?? key, value]),
      );
      const media = type ? (content[type] ?? content[`${type.split("/")[0]}/*`] ?? content["*/*"]) : undefined;
      if (!media) {
        problems.push(
          `${where}: the body's type ${type} is not documented (documented: ${Object.keys(content).join(", ") || "none"})`,
        );
      } else {
        const body = parseBody(exchange.responseContentType, exchange.responseBody);
        const problem = body.parsed ? this.schemaProblems(media.schema, body.value) : undefined;
        if (problem) problems.push(`${where}: the response body does not match its schema: ${problem}`);
      }
    }
    if (exchange.status < 300 && exchange.requestBody !== undefined && exchange.requestBody !== "") {
      const type = mediaTypeOf(exchange.requestContentType);
      const media = type ? operation.requestBody?.content?.[type] : undefined;
      if (!operation.requestBody) {
        problems.push(`${where}: a request body was accepted but none is documented`);
      } else if (!media) {
        problems.push(`${where}: the request body's type ${type} is not documented`);
      } else {
        const body = parseBody(exchange.requestContentType, exchange.requestBody);
        const problem = body.parsed ? this.schemaProblems(media.schema, body.value) : undefined;
        if (problem) problems.push(`${where}: the accepted request body does not match its schema: ${problem}`);
      }
    }
    return problems;
  }
}

/** Fetches `/openapi.json` of each public base URL. */
export async function fetchDocuments(baseUrls: readonly string[]): Promise<Map<string, OpenApiDocument>> {
  const documents = new Map<string, OpenApiDocument>();
  for (const baseUrl of baseUrls) {
    const response = await fetch(`${baseUrl}/openapi.json`);
    documents.set(new URL(baseUrl).origin, (await response.json()) as OpenApiDocument);
  }
  return documents;
}
