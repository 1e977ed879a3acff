import type { FieldError } from "./app-error.js";

/**
 * JSON Schema (2020-12) violations, as a validator such as ajv reports them, in the platform's one
 * wording of field errors (the same as the request schemas': `is required`, `must be a string`,
 * `must be one of a, b`): never the validator's own text, which names its keywords and types.
 */

/** What ajv (and validators of its shape) report for one violation. */
export interface JsonSchemaViolation {
  keyword: string;
  /** JSON Pointer of the failing value (`/degree/type`). */
  instancePath: string;
  /** JSON Pointer of the failing rule in the schema. */
  schemaPath: string;
  params: Record<string, unknown>;
}

const JSON_TYPE: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  object: "a JSON object",
  array: "an array",
  null: "null",
};

const FORMAT: Record<string, string> = {
  date: "an ISO 8601 date (YYYY-MM-DD)",
  "date-time": "an ISO 8601 date-time",
  time: "an ISO 8601 time",
  duration: "an ISO 8601 duration",
  email: "an email address",
  "idn-email": "an email address",
  uri: "a URI",
  "uri-reference": "a URI reference",
  iri: "an IRI",
  url: "a URL",
  uuid: "a UUID",
  hostname: "a host name",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
  regex: "a regular expression",
};

/** Allowed values as the request schemas list them: strings bare, anything else as JSON. */
const shown = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
const listed = (values: unknown) => (Array.isArray(values) ? values.map(shown).join(", ") : shown(values));

const unit = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** `must be a string`, `must be a string or null`. */
function typeMessage(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return `must be ${types.map((name) => JSON_TYPE[String(name)] ?? "of another type").join(" or ")}`;
}

/** The message of one violation; undefined for a violation that only groups others (`if`). */
function messageOf(violation: JsonSchemaViolation): string | undefined {
  const { keyword, params } = violation;
  const limit = Number(params.limit);
  switch (keyword) {
    case "type":
      return typeMessage(params.type);
    case "required":
    case "dependentRequired":
      return "is required";
    case "additionalProperties":
    case "unevaluatedProperties":
      // The unknown name is the client's input: never echoed.
      return "has a claim that is not a claim of this credential type";
    case "enum":
      return Array.isArray(params.allowedValues) && params.allowedValues.length === 1
        ? `must be ${listed(params.allowedValues[0])}`
        : `must be one of ${listed(params.allowedValues)}`;
    case "const":
      return `must be ${listed(params.allowedValue)}`;
    case "format":
      return `must be ${FORMAT[String(params.format)] ?? `in the ${String(params.format)} format`}`;
    case "pattern":
      return "has an invalid format";
    case "minLength":
      return limit === 1 ? "must not be empty" : `must be at least ${unit(limit, "character", "characters")}`;
    case "maxLength":
      return `must be at most ${unit(limit, "character", "characters")}`;
    case "minItems":
      return limit === 1 ? "must not be empty" : `must have at least ${unit(limit, "item", "items")}`;
    case "maxItems":
      return `must have at most ${unit(limit, "item", "items")}`;
    case "minProperties":
      return `must have at least ${unit(limit, "member", "members")}`;
    case "maxProperties":
      return `must have at most ${unit(limit, "member", "members")}`;
    case "uniqueItems":
      return "must not contain the same item twice";
    case "minimum":
      return `must be at least ${limit}`;
    case "maximum":
      return `must be at most ${limit}`;
    case "exclusiveMinimum":
      return `must be more than ${limit}`;
    case "exclusiveMaximum":
      return `must be less than ${limit}`;
    case "multipleOf":
      return `must be a multiple of ${Number(params.multipleOf)}`;
    case "contains":
      return "must contain a matching item";
    case "not":
      return "is not allowed";
    case "if":
      return undefined;
    default:
      // anyOf, oneOf and anything else: no validator wording reaches the client.
      return "is invalid";
  }
}

/** JSON Pointer -> dotted path segments. */
const segmentsOf = (pointer: string) =>
  pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));

/**
 * Every violation as a field error under `prefix` (`credential.claims.degree.type must be one of …`):
 * a missing member is named itself; the alternatives tried inside an `anyOf`/`oneOf` are left out
 * for the one `is invalid` of the field they belong to.
 */
export function jsonSchemaFieldErrors(violations: readonly JsonSchemaViolation[], prefix: string): FieldError[] {
  const alternatives = violations
    .filter((violation) => violation.keyword === "anyOf" || violation.keyword === "oneOf")
    .map((violation) => `${violation.schemaPath}/`);
  const errors: FieldError[] = [];
  for (const violation of violations) {
    if (alternatives.some((path) => violation.schemaPath.startsWith(path))) continue;
    const message = messageOf(violation);
    if (message === undefined) continue;
    const segments = [prefix, ...segmentsOf(violation.instancePath)];
    const missing = violation.params.missingProperty;
    if ((violation.keyword === "required" || violation.keyword === "dependentRequired") && missing !== undefined) {
      segments.push(String(missing));
    }
    errors.push({ field: segments.filter(Boolean).join("."), message });
  }
  return errors;
}
