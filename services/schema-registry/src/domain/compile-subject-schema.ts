import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import type { JsonObject } from "./json.js";

/**
 * Compiles a credential-subject JSON Schema (2020-12) into a validator. Strict mode turns schema
 * mistakes (unknown keywords or formats, `required` naming undeclared properties, type-less
 * constraints) into errors instead of silently ignoring them. A fresh Ajv per schema keeps `$id`s
 * of different types from colliding. Throws when the schema does not compile.
 */
export function compileSubjectSchema(schema: JsonObject): ValidateFunction {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  ajvFormats.default(ajv);
  return ajv.compile(schema);
}
