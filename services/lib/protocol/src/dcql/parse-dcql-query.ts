import { DcqlQuery } from "dcql";
import { createBoundedCache } from "../cache/bounded-cache.js";

/** Formats this platform verifies: SD-JWT VC (OID4VP 1.0 B.3) and ISO mdoc (B.2). */
export const SUPPORTED_CREDENTIAL_FORMATS = ["dc+sd-jwt", "mso_mdoc"] as const;
export type CredentialFormat = (typeof SUPPORTED_CREDENTIAL_FORMATS)[number];

/** `id` of credential queries and claims queries (DCQL, OID4VP 1.0 §6). */
export const DCQL_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

export type ClaimsPathElement = string | number | null;
export type ClaimValue = string | number | boolean;

export interface DcqlClaimsQuery {
  id?: string;
  /** `[namespace, element]` for mso_mdoc. */
  path: ClaimsPathElement[];
  values?: ClaimValue[];
  /** mso_mdoc only: the verifier means to retain the element (ISO/IEC 18013-5 IntentToRetain). */
  intent_to_retain?: boolean;
}

/** `trusted_authorities` item: `did` (issuer DIDs) and `aki` (x5c AuthorityKeyIdentifiers) are evaluated. */
export interface DcqlTrustedAuthority {
  type: string;
  values: string[];
}

export interface DcqlCredentialQuery {
  id: string;
  format: CredentialFormat;
  /** `vct_values` for dc+sd-jwt, `doctype_value` (required) for mso_mdoc. */
  meta: { vct_values?: string[]; doctype_value?: string };
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

function parseMdocClaim(claim: Record<string, unknown>, parsed: DcqlClaimsQuery, at: string): void {
  const path = parsed.path;
  if (path.length !== 2 || !path.every(isNonEmptyString)) {
    fail(`${at}.path must be [namespace, element] (two non-empty strings) for mso_mdoc`);
  }
  const intent = claim.intent_to_retain;
  if (intent !== undefined) {
    if (typeof intent !== "boolean") fail(`${at}.intent_to_retain must be a boolean`);
    parsed.intent_to_retain = intent as boolean;
  }
}

function parseClaims(value: unknown, where: string, format: CredentialFormat): DcqlClaimsQuery[] | undefined {
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
    if (format === "mso_mdoc") parseMdocClaim(claim, parsed, at);
    else if (claim.intent_to_retain !== undefined) fail(`${at}.intent_to_retain is only defined for mso_mdoc`);
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

function parseMeta(value: unknown, where: string, format: CredentialFormat): DcqlCredentialQuery["meta"] {
  if (value === undefined) return fail(`${where} is required`);
  if (!isObject(value)) return fail(`${where} must be an object`);
  if (format === "mso_mdoc") {
    if (value.doctype_value === undefined) return fail(`${where}.doctype_value is required for mso_mdoc`);
    if (!isNonEmptyString(value.doctype_value)) return fail(`${where}.doctype_value must be a non-empty string`);
    if (value.vct_values !== undefined) return fail(`${where}.vct_values is not defined for mso_mdoc`);
    return { doctype_value: value.doctype_value };
  }
  if (value.doctype_value !== undefined) return fail(`${where}.doctype_value is only defined for mso_mdoc`);
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
  const credentialFormat = format as CredentialFormat;
  const meta = parseMeta(value.meta, `${where}.meta`, credentialFormat);
  const claims = parseClaims(value.claims, `${where}.claims`, credentialFormat);
  const query: DcqlCredentialQuery = {
    id,
    format: credentialFormat,
    meta,
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
 * Query texts the `dcql` library accepted. Its parser and validator (valibot) are the costly part of
 * a parse, and a verifier sees the same few queries again and again: the route's schema, the
 * session's creation and every presentation parse each one. The library's verdict on the same JSON
 * text is the same, so it is asked once per text; this module's own rules still run every time.
 */
const ACCEPTED_TEXTS = createBoundedCache<true>({ max: 256 });
/** Longer query texts are not remembered (the cache stays small); they are validated every time. */
const MAX_REMEMBERED_TEXT = 8192;

function validateWithLibrary(input: Record<string, unknown>): void {
  const text = JSON.stringify(input);
  if (ACCEPTED_TEXTS.get(text)) return;
  try {
    DcqlQuery.validate(DcqlQuery.parse(withoutTrustedAuthorities(input) as DcqlQuery.Input));
  } catch (error) {
    fail(
      `dcql_query is invalid: ${error instanceof Error ? error.message.slice(0, 300) : "rejected by the DCQL parser"}`,
    );
  }
  if (text.length <= MAX_REMEMBERED_TEXT) ACCEPTED_TEXTS.set(text, true);
}

/**
 * Validates a DCQL query for this verifier: the rules above (credentials non-empty, ids
 * `^[A-Za-z0-9_-]+$` and unique, format `dc+sd-jwt` with `meta.vct_values` strings or `mso_mdoc`
 * with `meta.doctype_value` and claim paths `[namespace, element]` (`intent_to_retain` boolean),
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
  validateWithLibrary(input);
  const query: DcqlQueryDefinition = { credentials };
  if (credentialSets) query.credential_sets = credentialSets;
  return query;
}
