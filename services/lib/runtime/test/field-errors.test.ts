import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { invalidFields, jsonSchemaFieldErrors } from "../src/errors/index.js";
import { fieldErrorsOf, validatorCompiler } from "../src/http/validation.js";

describe("fieldErrorsOf: one field error per failing field, the field named once", () => {
  it("dots the path and drops a leading repetition of the field's name in any spelling", () => {
    expect(
      fieldErrorsOf(
        [
          { instancePath: "/password", message: "password is required" },
          { instancePath: "/selected_credentials/0/credential_id", message: "credential_id must be a UUID" },
          {
            instancePath: "/selected_credentials/1/credential_id",
            message: "selected_credentials[].credential_id must be a UUID",
          },
          {
            instancePath: "/selected_credentials/2/query_id",
            message: "selected_credentials.2.query_id is required",
          },
          { instancePath: "/name", message: "must not be empty" },
          { instancePath: "/name", message: "names must differ" },
        ],
        "body",
      ),
    ).toEqual([
      { field: "password", message: "is required" },
      { field: "selected_credentials.0.credential_id", message: "must be a UUID" },
      { field: "selected_credentials.1.credential_id", message: "must be a UUID" },
      { field: "selected_credentials.2.query_id", message: "is required" },
      { field: "name", message: "must not be empty" },
      { field: "name", message: "names must differ" },
    ]);
  });

  it("names the request part when the whole part fails", () => {
    expect(fieldErrorsOf([{ instancePath: "", message: "must be an object" }], "querystring")).toEqual([
      { field: "query", message: "must be an object" },
    ]);
  });
});

describe("one wording of field errors on every service", () => {
  it("gives one entry per field, rules joined with 'and', the first failing field first in the message", () => {
    const error = invalidFields([
      { field: "name", message: "must not be empty" },
      { field: "password", message: "must be at least 8 characters" },
      { field: "password", message: "must contain a digit" },
      { field: "name", message: "must not be empty" },
    ]);
    expect(error.fieldErrors).toEqual([
      { field: "name", message: "must not be empty" },
      { field: "password", message: "must be at least 8 characters and must contain a digit" },
    ]);
    expect(error.message).toBe(
      "name must not be empty; password must be at least 8 characters and must contain a digit",
    );
  });

  it("never names a validator's type: a zod record, tuple or map is a JSON object or an array", () => {
    const schema = z.object({
      claims: z.record(z.string(), z.unknown()),
      pair: z.tuple([z.string()]),
      odd: z.symbol(),
    });
    const result = validatorCompiler({ schema } as never)({ claims: [], pair: {}, odd: 1 }) as {
      error: Array<{ instancePath: string; message: string }>;
    };
    expect(fieldErrorsOf(result.error, "body")).toEqual([
      { field: "claims", message: "must be a JSON object" },
      { field: "pair", message: "must be an array" },
      { field: "odd", message: "is of the wrong type" },
    ]);
  });

  it("words JSON Schema violations (ajv) like the request schemas, every one at once", () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile({
      type: "object",
      required: ["family_name"],
      additionalProperties: false,
      properties: {
        family_name: { type: "string" },
        given_name: { type: "string", minLength: 1 },
        birth_date: { type: "string", format: "date" },
        level: { enum: ["a", "b"] },
        tags: { type: "array", minItems: 2, uniqueItems: true, items: { type: "string", pattern: "^[A-Z]+$" } },
        age: { type: "integer", minimum: 0, exclusiveMaximum: 150 },
        id: { anyOf: [{ type: "string" }, { type: "integer" }] },
      },
    });
    validate({ given_name: "", birth_date: "soon", level: "c", tags: ["x"], age: 150, id: true, extra: 1 });
    expect(jsonSchemaFieldErrors(validate.errors ?? [], "credential.claims")).toEqual([
      { field: "credential.claims.family_name", message: "is required" },
      { field: "credential.claims", message: "has a claim that is not a claim of this credential type" },
      { field: "credential.claims.given_name", message: "must not be empty" },
      { field: "credential.claims.birth_date", message: "must be an ISO 8601 date (YYYY-MM-DD)" },
      { field: "credential.claims.level", message: "must be one of a, b" },
      { field: "credential.claims.tags", message: "must have at least 2 items" },
      { field: "credential.claims.tags.0", message: "has an invalid format" },
      { field: "credential.claims.age", message: "must be less than 150" },
      { field: "credential.claims.id", message: "is invalid" },
    ]);
  });
});
