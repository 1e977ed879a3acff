import { createBoundedCache } from "@attesto/protocol/cache";
import { jsonSchemaFieldErrors } from "@attesto/runtime/errors";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import type { ClaimsValidators, JsonObject } from "./ports.js";

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
  // A schema object's text, made once per object: the type catalog hands out the same (never
  // changed) object until it loads the type again, so an offer need not stringify the schema.
  const fingerprints = new WeakMap<JsonObject, string>();
  const fingerprintOf = (schema: JsonObject) => {
    let fingerprint = fingerprints.get(schema);
    if (fingerprint === undefined) {
      fingerprint = JSON.stringify(schema);
      fingerprints.set(schema, fingerprint);
    }
    return fingerprint;
  };
  const validatorOf = (vct: string, schema: JsonObject) => {
    const fingerprint = fingerprintOf(schema);
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
