import { createBoundedCache } from "@attesto/protocol/cache";
import { type FieldError, jsonSchemaFieldErrors } from "@attesto/runtime/errors";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import type { JsonObject } from "./ports.js";

/**
 * Compiled JSON Schema (2020-12) validators of credential types, one per vct. A type whose schema
 * changed in the registry is compiled again; schemas come from the schema registry, which already
 * compiled them strictly, so unknown keywords are tolerated here.
 */
export interface ClaimsValidators {
  /**
   * Every violation at once, one entry per failing claim (`credential.claims.birth_date`: `must be
   * an ISO 8601 date (YYYY-MM-DD)`), in the platform's wording of field errors.
   */
  checkAll(vct: string, schema: JsonObject, claims: unknown): FieldError[];
}

/** Bound on cached validators, the least recently used going first (types in a deployment number in the tens). */
const MAX_CACHED = 500;

export function createClaimsValidators(options: { prefix?: string } = {}): ClaimsValidators {
  const prefix = options.prefix ?? "credential.claims";
  // No TTL: an entry is checked against the schema it was compiled from on every use.
  const cache = createBoundedCache<{ fingerprint: string; validate: ValidateFunction }>({ max: MAX_CACHED });
  const compile = (schema: JsonObject) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
    ajvFormats.default(ajv);
    return ajv.compile(schema);
  };
  const validatorOf = (vct: string, schema: JsonObject) => {
    const fingerprint = JSON.stringify(schema);
    let entry = cache.get(vct);
    if (!entry || entry.fingerprint !== fingerprint) {
      entry = { fingerprint, validate: compile(schema) };
      cache.set(vct, entry);
    }
    return entry.validate;
  };
  return {
    checkAll(vct, schema, claims) {
      const validate = validatorOf(vct, schema);
      if (validate(claims)) return [];
      const errors = jsonSchemaFieldErrors(validate.errors ?? [], prefix);
      return errors.length > 0 ? errors : [{ field: prefix, message: "do not conform to the credential type" }];
    },
  };
}
