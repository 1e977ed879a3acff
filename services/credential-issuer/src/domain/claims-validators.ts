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

function describe(error: ErrorObject, prefix: string): string {
  const at = `${prefix}${claimPath(error.instancePath)}`;
  if (error.keyword === "required") return `${at}.${String(error.params.missingProperty)} is required`;
  if (error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties") {
    // The claim's name is the client's input: never echoed.
    return `${at} has a claim that is not a claim of this credential type`;
  }
  return `${at} ${error.message ?? "is invalid"}`;
}

export function createClaimsValidators(options: { prefix?: string } = {}): ClaimsValidators {
  const prefix = options.prefix ?? "credential.claims";
  // No TTL: an entry is checked against the schema it was compiled from on every use.
  const cache = new LRUCache<string, { fingerprint: string; validate: ValidateFunction }>({ max: MAX_CACHED });
  const compile = (schema: JsonObject) => {
    const ajv = new Ajv2020({ strict: false, allErrors: false, allowUnionTypes: true });
    ajvFormats.default(ajv);
    return ajv.compile(schema);
  };
  return {
    check(vct, schema, claims) {
      const fingerprint = JSON.stringify(schema);
      let entry = cache.get(vct);
      if (!entry || entry.fingerprint !== fingerprint) {
        entry = { fingerprint, validate: compile(schema) };
        cache.set(vct, entry);
      }
      if (entry.validate(claims)) return undefined;
      const first = entry.validate.errors?.[0];
      return first ? describe(first, prefix) : `${prefix} do not conform to the credential type`;
    },
  };
}
