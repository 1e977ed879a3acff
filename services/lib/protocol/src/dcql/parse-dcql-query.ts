import { DcqlQuery } from "dcql";

/** Formats this platform verifies. */
export const SUPPORTED_CREDENTIAL_FORMATS = ["dc+sd-jwt"] as const;

/** `id` of credential queries and claims queries (DCQL, OID4VP 1.0 §6). */
export const DCQL_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

export type ClaimsPathElement = string | number | null;
export type ClaimValue = string | number | boolean;

export interface DcqlClaimsQuery {
  id?: string;
  path: ClaimsPathElement[];
  values?: ClaimValue[];
}

/** `trusted_authorities` item: `did` (issuer DIDs) and `aki` (x5c AuthorityKeyIdentifiers) are evaluated. */
export interface DcqlTrustedAuthority {
  type: string;
  values: string[];
}

export interface DcqlCredentialQuery {
  id: string;
  format: (typeof SUPPORTED_CREDENTIAL_FORMATS)[number];
  meta: { vct_values?: string[] };
  claims?: DcqlClaimsQuery[];
  claim_sets?: string[][];
  multiple: boolean;
  require_cryptographic_holder_binding: boolean;
  trusted_authorities?: DcqlTrustedAuthority[];
}

export interface DcqlCredentialSetQuery {
  options: string[][];
  required: boolean;
}

/** A validated DCQL query, defaults applied (`multiple` false, holder binding required). */
export interface DcqlQueryDefinition {
  credentials: DcqlCredentialQuery[];
  credential_sets?: DcqlCredentialSetQuery[];
}

/** A DCQL query that cannot be accepted; the message names the offending member. */
export class DcqlQueryError extends Error {
  override name = "DcqlQueryError";

  /**
   * The failing member as a field error: every message starts with the member's path
   * (`dcql_query.credentials[0].id must match …`); the field is that path dotted
   * (`dcql_query.credentials.0.id`), the message what follows it.
   */
  get fieldError(): { field: string; message: string } {
    const space = this.message.indexOf(" ");
    const path = space < 0 ? "dcql_query" : this.message.slice(0, space);
    return {
      field: path.replace(/\[(\d+)\]/g, ".$1"),
      message: space < 0 ? this.message : this.message.slice(space + 1),
    };
  }
}

const fail = (message: string): never => {
  throw new DcqlQueryError(message);
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isNonEmptyArray = (value: unknown): value is unknown[] => Array.isArray(value) && value.length > 0;

const isNonEmptyString = (value: unknown): value is string => typeof value === "string" && value.length > 0;

/** An input value quoted for a message, cut short: messages name the problem, they do not echo payloads. */
function optionalBoolean(value: unknown, where: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") fail(`${where} must be a boolean`);
  return value as boolean;
}

function parseClaimsPath(value: unknown, where: string): ClaimsPathElement[] {
  if (!isNonEmptyArray(value)) return fail(`${where} must be a non-empty array`);
  for (const element of value) {
    const ok =
      element === null ||
      typeof element === "string" ||
      (typeof element === "number" && Number.isInteger(element) && element >= 0);
    if (!ok) fail(`${where} elements must be strings, non-negative integers or null`);
  }
  return value as ClaimsPathElement[];
}

function parseClaimValues(value: unknown, where: string): ClaimValue[] | undefined {
  if (value === undefined) return undefined;
  if (!isNonEmptyArray(value)) return fail(`${where} must be a non-empty array`);
  for (const element of value) {
    const ok =
      typeof element === "string" ||
      typeof element === "boolean" ||
      (typeof element === "number" && Number.isInteger(element));
    if (!ok) fail(`${where} elements must be strings, integers or booleans`);
  }
  return value as ClaimValue[];
}

function parseClaims(value: unknown, where: string): DcqlClaimsQuery[] | undefined {
  if (value === undefined) return undefined;
  if (!isNonEmptyArray(value)) return fail(`${where} must be a non-empty array`);
  const ids = new Set<string>();
  return value.map((claim, index) => {
    const at = `${where}[${index}]`;
    if (!isObject(claim)) return fail(`${at} must be an object`);
    const id = claim.id;
    if (id !== undefined) {
      if (typeof id !== "string" || !DCQL_ID_PATTERN.test(id)) fail(`${at}.id must match ${DCQL_ID_PATTERN.source}`);
      if (ids.has(id as string)) fail(`${where} ids must be unique: '${id}' is repeated`);
      ids.add(id as string);
    }
    const parsed: DcqlClaimsQuery = { path: parseClaimsPath(claim.path, `${at}.path`) };
    if (id !== undefined) parsed.id = id as string;
    const values = parseClaimValues(claim.values, `${at}.values`);
    if (values) parsed.values = values;
    return parsed;
  });
}

function parseClaimSets(value: unknown, claims: DcqlClaimsQuery[] | undefined, where: string): string[][] | undefined {
  if (value === undefined) return undefined;
  if (!claims) return fail(`${where} requires claims`);
  if (!isNonEmptyArray(value)) return fail(`${where} must be a non-empty array`);
  const ids = new Set(claims.map((claim) => claim.id).filter(Boolean));
  return value.map((set, index) => {
    if (!isNonEmptyArray(set) || !set.every(isNonEmptyString)) {
      return fail(`${where}[${index}] must be a non-empty array of claim ids`);
    }
    const unknown = set.find((id) => !ids.has(id));
    if (unknown !== undefined) fail(`${where}[${index}] names a claim id that no claim has`);
    return set;
  });
}

function parseTrustedAuthorities(value: unknown, where: string): DcqlTrustedAuthority[] | undefined {
  if (value === undefined) return undefined;
  if (!isNonEmptyArray(value)) return fail(`${where} must be a non-empty array`);
  return value.map((authority, index) => {
    const at = `${where}[${index}]`;
    if (!isObject(authority)) return fail(`${at} must be an object with type and values`);
    if (!isNonEmptyString(authority.type)) fail(`${at}.type must be a non-empty string`);
    if (!isNonEmptyArray(authority.values) || !authority.values.every(isNonEmptyString)) {
      fail(`${at}.values must be a non-empty array of strings`);
    }
    return { type: authority.type as string, values: authority.values as string[] };
  });
}

function parseMeta(value: unknown, where: string): { vct_values?: string[] } {
  if (value === undefined) return fail(`${where} is required`);
  if (!isObject(value)) return fail(`${where} must be an object`);
  const vctValues = value.vct_values;
  if (vctValues === undefined) return {};
  if (!isNonEmptyArray(vctValues) || !vctValues.every(isNonEmptyString)) {
    return fail(`${where}.vct_values must be a non-empty array of strings`);
  }
  return { vct_values: vctValues };
}

function parseCredentialQuery(value: unknown, index: number, ids: Set<string>): DcqlCredentialQuery {
  const where = `dcql_query.credentials[${index}]`;
  if (!isObject(value)) return fail(`${where} must be an object`);
  const { id, format } = value;
  if (id === undefined) fail(`${where}.id is required`);
  if (typeof id !== "string" || !DCQL_ID_PATTERN.test(id))
    return fail(`${where}.id must match ${DCQL_ID_PATTERN.source}`);
  if (ids.has(id)) fail("dcql_query.credentials ids must be unique: an id is repeated");
  ids.add(id);
  if (format === undefined) fail(`${where}.format is required`);
  if (typeof format !== "string") return fail(`${where}.format must be a string`);
  if (!(SUPPORTED_CREDENTIAL_FORMATS as readonly string[]).includes(format)) {
    fail(`${where}.format is not supported (supported: ${SUPPORTED_CREDENTIAL_FORMATS.join(", ")})`);
  }
  const claims = parseClaims(value.claims, `${where}.claims`);
  const query: DcqlCredentialQuery = {
    id,
    format: format as DcqlCredentialQuery["format"],
    meta: parseMeta(value.meta, `${where}.meta`),
    multiple: optionalBoolean(value.multiple, `${where}.multiple`, false),
    require_cryptographic_holder_binding: optionalBoolean(
      value.require_cryptographic_holder_binding,
      `${where}.require_cryptographic_holder_binding`,
      true,
    ),
  };
  if (claims) query.claims = claims;
  const claimSets = parseClaimSets(value.claim_sets, claims, `${where}.claim_sets`);
  if (claimSets) query.claim_sets = claimSets;
  const trustedAuthorities = parseTrustedAuthorities(value.trusted_authorities, `${where}.trusted_authorities`);
  if (trustedAuthorities) query.trusted_authorities = trustedAuthorities;
  return query;
}

function parseCredentialSets(value: unknown, ids: Set<string>): DcqlCredentialSetQuery[] | undefined {
  if (value === undefined) return undefined;
  const where = "dcql_query.credential_sets";
  if (!isNonEmptyArray(value)) return fail(`${where} must be a non-empty array`);
  return value.map((set, index) => {
    const at = `${where}[${index}]`;
    if (!isObject(set)) return fail(`${at} must be an object`);
    const options = set.options;
    if (!isNonEmptyArray(options)) return fail(`${at}.options must be a non-empty array`);
    for (const option of options) {
      if (!isNonEmptyArray(option) || !option.every(isNonEmptyString)) {
        fail(`${at}.options must hold non-empty arrays of credential query ids`);
      }
      const unknown = (option as string[]).find((id) => !ids.has(id));
      if (unknown !== undefined) fail(`${at}.options names a credential query that does not exist`);
    }
    return { options: options as string[][], required: optionalBoolean(set.required, `${at}.required`, true) };
  });
}

/** The input the `dcql` library parses: its trusted-authority types do not include `did`, so ours are checked here. */
function withoutTrustedAuthorities(query: Record<string, unknown>): Record<string, unknown> {
  const credentials = (query.credentials as Record<string, unknown>[]).map(
    ({ trusted_authorities: _ignored, ...rest }) => rest,
  );
  return { ...query, credentials };
}

/**
 * Validates a DCQL query for this verifier: the rules above (credentials non-empty, ids
 * `^[A-Za-z0-9_-]+$` and unique, format `dc+sd-jwt`, `meta` an object with `vct_values` strings,
 * claims paths of strings / non-negative integers / null, `trusted_authorities` `{type, values[]}`),
 * then the `dcql` library's own parser and validator (claim sets, credential sets).
 */
export function parseDcqlQuery(input: unknown): DcqlQueryDefinition {
  if (input === undefined || input === null) return fail("dcql_query is required");
  if (!isObject(input)) return fail("dcql_query must be an object");
  if (input.credentials === undefined) return fail("dcql_query.credentials is required");
  if (!Array.isArray(input.credentials)) return fail("dcql_query.credentials must be an array");
  if (input.credentials.length === 0) return fail("dcql_query.credentials must not be empty");
  const ids = new Set<string>();
  const credentials = input.credentials.map((credential, index) => parseCredentialQuery(credential, index, ids));
  const credentialSets = parseCredentialSets(input.credential_sets, ids);
  try {
    DcqlQuery.validate(DcqlQuery.parse(withoutTrustedAuthorities(input) as DcqlQuery.Input));
  } catch (error) {
    fail(
      `dcql_query is invalid: ${error instanceof Error ? error.message.slice(0, 300) : "rejected by the DCQL parser"}`,
    );
  }
  const query: DcqlQueryDefinition = { credentials };
  if (credentialSets) query.credential_sets = credentialSets;
  return query;
}
