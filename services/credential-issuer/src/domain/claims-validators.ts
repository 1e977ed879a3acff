import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { LRUCache } from "lru-cache";
import type { JsonObject } from "./ports.js";

/**
 * Compiled JSON Schema (2020-12) validators of credential types, one per vct. A type whose schema
 * changed in the registry is compiled again; schemas come from the schema registry, which already
 * compiled them strictly, so unknown keywords are tolerated here.
 */
export interface ClaimsValidators {
  /** The first violation, described with the failing claim's name (e.g. `credential.claims.birth_date must ...`). */
  check(vct: string, schema: JsonObject, claims: unknown): string | undefined;
  /** Every violation at once, as `{field, message}` (mdoc offers: every failing data element). */
  checkAll(vct: string, schema: JsonObject, claims: unknown): Array<{ field: string; message: string }>;
}

/** Bound on cached validators, the least recently used going first (types in a deployment number in the tens). */
const MAX_CACHED = 500;

/** JSON Pointer segments -> `.name` / `[index]`. */
function claimPath(instancePath: string): string {
  return instancePath
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`))
    .join("");
}

/** The failing field (a claim path under `prefix`) and what is wrong with it. */
function fieldErrorOf(error: ErrorObject, prefix: string): { field: string; message: string } {
  const at = `${prefix}${claimPath(error.instancePath)}`;
  if (error.keyword === "required")
    return { field: `${at}.${String(error.params.missingProperty)}`, message: "is required" };
  if (error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties") {
    // The claim's name is the client's input: never echoed.
    return { field: at, message: "has a claim that is not a claim of this credential type" };
  }
  return { field: at, message: error.message ?? "is invalid" };
}

function describe(error: ErrorObject, prefix: string): string {
  const { field, message } = fieldErrorOf(error, prefix);
  return `${field} ${message}`;
}

export function createClaimsValidators(options: { prefix?: string } = {}): ClaimsValidators {
  const prefix = options.prefix ?? "credential.claims";
  // No TTL: an entry is checked against the schema it was compiled from on every use.
  const cache = new LRUCache<string, { fingerprint: string; validate: ValidateFunction }>({ max: MAX_CACHED });
  const compile = (schema: JsonObject, allErrors: boolean) => {
    const ajv = new Ajv2020({ strict: false, allErrors, allowUnionTypes: true });
    ajvFormats.default(ajv);
    return ajv.compile(schema);
  };
  const validatorOf = (vct: string, schema: JsonObject, allErrors: boolean) => {
    const fingerprint = JSON.stringify(schema);
    const key = allErrors ? `all ${vct}` : vct;
    let entry = cache.get(key);
    if (!entry || entry.fingerprint !== fingerprint) {
      entry = { fingerprint, validate: compile(schema, allErrors) };
      cache.set(key, entry);
    }
    return entry;
  };
  return {
    checkAll(vct, schema, claims) {
      const { validate } = validatorOf(vct, schema, true);
      if (validate(claims)) return [];
      const errors = (validate.errors ?? []).map((error) => fieldErrorOf(error, prefix));
      const unique = new Map(errors.map((error) => [`${error.field} ${error.message}`, error]));
      return unique.size > 0
        ? [...unique.values()]
        : [{ field: prefix, message: "do not conform to the credential type" }];
    },
    check(vct, schema, claims) {
      const entry = validatorOf(vct, schema, false);
      if (entry.validate(claims)) return undefined;
      const first = entry.validate.errors?.[0];
      return first ? describe(first, prefix) : `${prefix} do not conform to the credential type`;
    },
  };
}
