import { DcqlPresentationResult, DcqlQuery } from "dcql";
import { createBoundedCache } from "../cache/bounded-cache.js";
import type {
  ClaimsPathElement,
  DcqlClaimsQuery,
  DcqlCredentialQuery,
  DcqlQueryDefinition,
} from "./parse-dcql-query.js";

/** What the verifier learnt from one verified presentation, as DCQL sees it. */
export type DcqlPresentedCredential =
  | {
      format?: "dc+sd-jwt";
      vct: string | undefined;
      /** Disclosed claims (processed SD-JWT payload). */
      claims: Record<string, unknown>;
    }
  | {
      format: "mso_mdoc";
      doctype: string;
      /** Disclosed issuer-signed elements by namespace (`{namespace: {element: value}}`). */
      claims: Record<string, Record<string, unknown>>;
    };

export type DcqlMismatch = { satisfied: false; code: string; message: string };
export type DcqlMatch = { satisfied: true } | DcqlMismatch;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `address.street`, `nationalities[*]`, `degrees[0].type`: a path for messages, never a value. */
export function formatClaimsPath(path: ClaimsPathElement[]): string {
  return path
    .map((element, index) => {
      if (element === null) return "[*]";
      if (typeof element === "number") return `[${element}]`;
      return index === 0 ? element : `.${element}`;
    })
    .join("");
}

/** DCQL claims path pointer processing (OID4VP 1.0 §7): the selected values, empty when none. */
export function selectClaims(claims: Record<string, unknown>, path: ClaimsPathElement[]): unknown[] {
  let selected: unknown[] = [claims];
  for (const element of path) {
    const next: unknown[] = [];
    for (const value of selected) {
      if (typeof element === "string") {
        if (isObject(value) && Object.hasOwn(value, element)) next.push(value[element]);
      } else if (element === null) {
        if (Array.isArray(value)) next.push(...value);
      } else if (Array.isArray(value) && element < value.length) {
        next.push(value[element]);
      }
    }
    selected = next;
    if (selected.length === 0) return [];
  }
  return selected.filter((value) => value !== null && value !== undefined);
}

/** Why a claims query is not met by `claims`, or undefined when it is. */
function claimProblem(claims: Record<string, unknown>, claim: DcqlClaimsQuery): DcqlMismatch | undefined {
  const selected = selectClaims(claims, claim.path);
  const name = formatClaimsPath(claim.path);
  if (selected.length === 0)
    return { satisfied: false, code: "claim_missing", message: `claim '${name}' is not disclosed` };
  if (claim.values && !selected.some((value) => claim.values?.some((expected) => expected === value))) {
    return {
      satisfied: false,
      code: "claim_value_mismatch",
      message: `claim '${name}' does not have a requested value`,
    };
  }
  return undefined;
}

/** The first reason a credential's claims do not satisfy its query (for a readable message). */
function explainClaims(query: DcqlCredentialQuery, credential: DcqlPresentedCredential): DcqlMismatch {
  const claims = query.claims ?? [];
  const sets = query.claim_sets ?? [claims.map((claim) => claim.id ?? "")];
  for (const set of sets) {
    const chosen = query.claim_sets ? claims.filter((claim) => claim.id && set.includes(claim.id)) : claims;
    const problem = chosen.map((claim) => claimProblem(credential.claims, claim)).find(Boolean);
    if (problem) return { ...problem, message: `credential query '${query.id}': ${problem.message}` };
  }
  return {
    satisfied: false,
    code: "claims_not_satisfied",
    message: `credential query '${query.id}': the disclosed claims do not satisfy the query`,
  };
}

/**
 * The library's parse of a query's claims-only form, by the query's JSON text: parsing is most of
 * its cost and every presentation of a session (and every session of the same query) needs the same
 * one. The library only reads it (`fromDcqlPresentation`).
 */
const CLAIMS_ONLY_QUERIES = createBoundedCache<DcqlQuery>({ max: 256 });
const MAX_REMEMBERED_TEXT = 8192;

function cachedClaimsOnlyQuery(query: DcqlQueryDefinition): DcqlQuery {
  const text = JSON.stringify(query);
  const cached = CLAIMS_ONLY_QUERIES.get(text);
  if (cached) return cached;
  const parsed = claimsOnlyQuery(query);
  if (text.length <= MAX_REMEMBERED_TEXT) CLAIMS_ONLY_QUERIES.set(text, parsed);
  return parsed;
}

/** The query the `dcql` library evaluates: vct, holder binding and trusted authorities are separate checks. */
function claimsOnlyQuery(query: DcqlQueryDefinition): DcqlQuery {
  const credentials = query.credentials.map(({ trusted_authorities: _ta, meta, ...rest }) => ({
    ...rest,
    meta: rest.format === "mso_mdoc" ? { doctype_value: meta.doctype_value } : {},
    require_cryptographic_holder_binding: false,
  }));
  return DcqlQuery.parse({ ...query, credentials } as DcqlQuery.Input);
}

/**
 * Whether `claims` has a defined (not null or undefined) value at `path` as the `dcql` library decides
 * it for a path of member names (its valibot object schemas): each step needs an object (arrays
 * included) that has the member, own or inherited (`in`).
 */
function definedAt(claims: unknown, path: readonly string[]): boolean {
  let value = claims;
  for (const name of path) {
    if (!value || typeof value !== "object" || !(name in value)) return false;
    value = (value as Record<string, unknown>)[name];
  }
  return value !== null && value !== undefined;
}

/**
 * The common query, answered without the library: no credential sets, every credential query a
 * dc+sd-jwt one without claim sets whose claims are paths of member names with no accepted values,
 * every credential query answered (by SD-JWT credentials, counts already checked). True only when
 * the library would find the query satisfied (the same member test as its schemas; vct, holder
 * binding and trusted authorities are not part of the claims-only query); anything else, a claim
 * not disclosed included, goes to the library, which decides and explains it.
 */
function satisfiedWithoutLibrary(
  query: DcqlQueryDefinition,
  presented: Record<string, DcqlPresentedCredential[]>,
): boolean {
  if (query.credential_sets) return false;
  for (const credentialQuery of query.credentials) {
    if (credentialQuery.format !== "dc+sd-jwt" || credentialQuery.claim_sets) return false;
    const paths: string[][] = [];
    for (const claim of credentialQuery.claims ?? []) {
      if (claim.values || !claim.path.every((element) => typeof element === "string")) return false;
      paths.push(claim.path as string[]);
    }
    const credentials = presented[credentialQuery.id];
    if (!credentials || credentials.length === 0) return false;
    for (const credential of credentials) {
      if (credential.format === "mso_mdoc") return false;
      if (!paths.every((path) => definedAt(credential.claims, path))) return false;
    }
  }
  return true;
}

/**
 * Whether the presented credentials (keyed by credential query id) satisfy the DCQL query's
 * structure and claims: every key is a query id, one presentation per query unless `multiple`,
 * requested claims disclosed with an accepted value (claim sets honoured), every required
 * credential query (or credential set) answered. Evaluated with the `dcql` library.
 */
export function matchDcqlPresentations(
  query: DcqlQueryDefinition,
  presented: Record<string, DcqlPresentedCredential[]>,
): DcqlMatch {
  const byId = new Map(query.credentials.map((credential) => [credential.id, credential]));
  for (const [id, credentials] of Object.entries(presented)) {
    const credentialQuery = byId.get(id);
    if (!credentialQuery) {
      return {
        satisfied: false,
        code: "unknown_credential_query",
        message: "vp_token answers a credential query id that the request does not have",
      };
    }
    if (credentials.length === 0) {
      return {
        satisfied: false,
        code: "credential_query_unanswered",
        message: `credential query '${id}' has an empty answer`,
      };
    }
    if (credentials.length > 1 && !credentialQuery.multiple) {
      return {
        satisfied: false,
        code: "multiple_not_allowed",
        message: `credential query '${id}' allows one presentation, ${credentials.length} were given`,
      };
    }
  }
  // The library builds valibot schemas per claim and credential on every call (~0.1 ms a flow).
  if (satisfiedWithoutLibrary(query, presented)) return { satisfied: true };
  const dcqlPresentation = Object.fromEntries(
    Object.entries(presented).map(([id, credentials]) => [
      id,
      credentials.map((credential) =>
        credential.format === "mso_mdoc"
          ? {
              credential_format: "mso_mdoc" as const,
              doctype: credential.doctype,
              namespaces: credential.claims as never,
              cryptographic_holder_binding: true,
            }
          : {
              credential_format: "dc+sd-jwt" as const,
              vct: credential.vct ?? "",
              claims: credential.claims as never,
              cryptographic_holder_binding: true,
            },
      ),
    ]),
  );
  let result: ReturnType<typeof DcqlPresentationResult.fromDcqlPresentation>;
  try {
    result = DcqlPresentationResult.fromDcqlPresentation(dcqlPresentation, { dcqlQuery: cachedClaimsOnlyQuery(query) });
  } catch {
    return {
      satisfied: false,
      code: "claims_not_satisfied",
      message: "the presentations cannot be evaluated against the query",
    };
  }
  for (const [id, credentials] of Object.entries(presented)) {
    const match = result.credential_matches[id];
    const credentialQuery = byId.get(id)!;
    const failedIndex = match?.failed_credentials?.[0]?.input_credential_index;
    if (match && !match.success) return explainClaims(credentialQuery, credentials[0]!);
    if (failedIndex !== undefined) return explainClaims(credentialQuery, credentials[failedIndex]!);
  }
  if (!result.can_be_satisfied) {
    if (query.credential_sets) {
      return {
        satisfied: false,
        code: "credential_sets_unsatisfied",
        message: "no option of a required credential set is answered",
      };
    }
    const missing = query.credentials.find((credential) => !presented[credential.id]);
    return {
      satisfied: false,
      code: "credential_query_unanswered",
      message: missing ? `credential query '${missing.id}' is not answered` : "the query is not satisfied",
    };
  }
  return { satisfied: true };
}
