import type { FastifySchemaCompiler, FastifySchemaValidationError } from "fastify";
import type { z } from "zod";
import { safeParse } from "zod/v4/core";
import type { FieldError } from "../errors/app-error.js";

/**
 * Request validation with one wording on every service: each failing field gets a message that
 * continues its name (`is required`, `must be a string`, `must be one of a, b`), and a validation
 * failure names every failing field (the error handler sends them as `errors`).
 */

type Issue = z.core.$ZodRawIssue;

const ARTICLE: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  bigint: "an integer",
  boolean: "a boolean",
  object: "a JSON object",
  record: "a JSON object",
  map: "a JSON object",
  array: "an array",
  tuple: "an array",
  set: "an array",
  date: "a date",
  null: "null",
  nan: "a number",
};

const FORMAT: Record<string, string> = {
  uuid: "a UUID",
  guid: "a UUID",
  url: "a URL",
  email: "an email address",
  datetime: "an ISO 8601 date-time",
  date: "an ISO 8601 date",
  base64url: "base64url",
};

function sizeUnit(origin: unknown, count: number): string {
  if (origin === "string") return count === 1 ? " character" : " characters";
  if (origin === "array" || origin === "set") return count === 1 ? " item" : " items";
  return "";
}

const listed = (values: readonly unknown[]) => values.map((value) => String(value)).join(", ");

/** The message of one issue in the platform's wording; undefined keeps the schema's own. */
export function fieldMessage(issue: Issue): string | undefined {
  // A missing field fails whatever its rule (type, enum, literal, union): it is required.
  if (issue.input === undefined && issue.code !== "custom") return "is required";
  switch (issue.code) {
    case "invalid_type":
      // Never the validator's own type name (`record`, `union`): an unknown one reads as "of another type".
      return ARTICLE[issue.expected] ? `must be ${ARTICLE[issue.expected]}` : "is of the wrong type";
    case "too_small": {
      const min = Number(issue.minimum);
      if (min === 1 && issue.inclusive !== false && issue.origin !== "number") return "must not be empty";
      const bound = issue.inclusive === false ? "more than" : "at least";
      return `must be ${bound} ${issue.minimum}${sizeUnit(issue.origin, min)}`;
    }
    case "too_big": {
      const bound = issue.inclusive === false ? "less than" : "at most";
      return `must be ${bound} ${issue.maximum}${sizeUnit(issue.origin, Number(issue.maximum))}`;
    }
    case "invalid_format":
      return issue.format === "regex" ? "has an invalid format" : `must be ${FORMAT[issue.format] ?? issue.format}`;
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${listed(issue.values)}`;
    case "unrecognized_keys":
      // The names are the client's input: never echoed (docs/http-api.md, "Error answers").
      return "has unknown fields";
    case "invalid_union":
      return "is invalid";
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "invalid_key":
      return "has a member name that is not allowed";
    case "invalid_element":
      return "has an item that is not allowed";
    default:
      return undefined;
  }
}

/** One failing field of `parseFields`, with the issue it comes from (its `code`, `params`). */
export interface FieldIssue extends FieldError {
  issue: z.core.$ZodIssue;
}

export type ParsedFields<T> = { success: true; data: T } | { success: false; issues: FieldIssue[] };

/**
 * Parses `value` with a route's schema in the platform's wording, for a body the handler checks
 * itself (after an access token: its errors are a protocol's, `documentedOnly`): the value, or
 * every failing field with its issue.
 */
export function parseFields<T extends z.ZodType>(schema: T, value: unknown, part = "body"): ParsedFields<z.output<T>> {
  const result = safeParse(schema, value, { error: fieldMessage });
  if (result.success) return { success: true, data: result.data as z.output<T> };
  const issues = result.error.issues;
  const fields = fieldErrorsOf(issues.map(validationIssueOf), part);
  return {
    success: false,
    issues: fields.map((field, index) => ({ ...field, issue: issues[index] as z.core.$ZodIssue })),
  };
}

const validationIssueOf = (issue: z.core.$ZodIssue): FastifySchemaValidationError => ({
  keyword: issue.code,
  instancePath: `/${issue.path.map(String).join("/")}`,
  schemaPath: "",
  params: {},
  message: issue.message,
});

/** The Fastify validator of every route schema (zod): every issue, in the platform's wording. */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = safeParse(schema, data, { error: fieldMessage });
    if (result.success) return { value: result.data };
    return { error: result.error.issues.map(validationIssueOf) as unknown as Error };
  };

/** The name a client knows a request part by. */
const PART_NAMES: Record<string, string> = { querystring: "query", params: "path", headers: "headers", body: "body" };

/** `a.0.b` as a schema's message may spell it: `a[].b`. */
const arrayPathOf = (segments: string[]) =>
  segments.reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[]` : path ? `${path}.${segment}` : segment), "");

/**
 * One field error per failing field: its dotted path (or the request part), and the message
 * without a leading repetition of the field's name (some schemas name it, for other callers).
 */
export function fieldErrorsOf(
  issues: ReadonlyArray<{ instancePath?: string; message?: string }>,
  context: string | undefined,
): FieldError[] {
  return issues.map((issue) => {
    const segments = (issue.instancePath ?? "").split("/").filter(Boolean);
    const field = segments.length > 0 ? segments.join(".") : (PART_NAMES[context ?? "body"] ?? "request");
    let message = issue.message?.trim() || "is invalid";
    const last = segments.at(-1);
    for (const name of [field, arrayPathOf(segments), last]) {
      if (name && message.startsWith(`${name} `)) {
        message = message.slice(name.length + 1);
        break;
      }
    }
    return { field, message };
  });
}
