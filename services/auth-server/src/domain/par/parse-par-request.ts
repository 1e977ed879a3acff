import { isS256CodeChallenge, PKCE_S256 } from "@attesto/protocol";
import { describeFieldErrors, type FieldError, InvalidRequest } from "@attesto/runtime/errors";
import type { TokenParameters } from "../token/token-parameters.js";

/** PAR `state` is at most 4096 characters. */
export const MAX_STATE_LENGTH = 4096;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JWK_THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;
/** Schemes a browser must never be sent to with a code. */
const FORBIDDEN_REDIRECT_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:"]);

/** One RFC 9396 authorization_details entry, as sent (checked against the offer later). */
export type AuthorizationDetail = Record<string, unknown> & { type: string };

/** A pushed authorization request whose parameters have the right shape (this service's README). */
export interface ParParameters {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  /** Space-separated scope values, each a credential configuration id. */
  scopes: string[];
  /** Lowercase UUID. */
  issuerState: string | undefined;
  authorizationDetails: AuthorizationDetail[] | undefined;
  state: string | undefined;
  /** RFC 9449 §10: the thumbprint of the DPoP key the code is to be bound to. */
  dpopJkt: string | undefined;
}

/** Every parameter problem of one request, so the 400 names them all at once. */
class FieldErrorCollector {
  readonly errors: FieldError[] = [];

  add(field: string, message: string): void {
    this.errors.push({ field, message });
  }

  /** The parameter's value; a repeated parameter is recorded and treated as absent. */
  optional(parameters: TokenParameters, name: string): string | undefined {
    const value = parameters[name];
    if (Array.isArray(value)) {
      this.add(name, "must not be repeated");
      return undefined;
    }
    return value === undefined || value === "" ? undefined : value;
  }

  required(parameters: TokenParameters, name: string): string | undefined {
    if (Array.isArray(parameters[name])) return this.optional(parameters, name);
    const value = this.optional(parameters, name);
    if (value === undefined) this.add(name, "is required");
    return value;
  }
}

function redirectUriProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URI";
  }
  if (FORBIDDEN_REDIRECT_SCHEMES.has(url.protocol)) return "scheme is not allowed";
  if (value.includes("#")) return "must not contain a fragment";
  return undefined;
}

function authorizationDetailsOf(value: string): AuthorizationDetail[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return "must be a JSON array";
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return "must be a non-empty JSON array";
  for (const item of parsed) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return "entries must be JSON objects";
    if (typeof (item as { type?: unknown }).type !== "string") return "entries must have a type";
  }
  return parsed as AuthorizationDetail[];
}

/**
 * Step 1 of POST /v1/par: the parameters, in the order this service's README lists them. Missing required ones and
 * malformed values are one 400 `invalid_request` listing every failing parameter in `errors`; `request_uri` must not be sent
 * (RFC 9126 §2.1); unknown parameters (resource, ...) are ignored.
 */
export function parseParRequest(parameters: TokenParameters): ParParameters {
  const check = new FieldErrorCollector();
  if (parameters.request_uri !== undefined) {
    check.add("request_uri", "must not be sent to the pushed authorization request endpoint");
  }
  if (check.optional(parameters, "request") !== undefined) {
    check.add("request", "(a request object) is not supported");
  }
  const responseType = check.required(parameters, "response_type");
  if (responseType !== undefined && responseType !== "code") check.add("response_type", "must be code");
  const clientId = check.required(parameters, "client_id");
  const redirectUri = check.required(parameters, "redirect_uri");
  const redirectProblem = redirectUri === undefined ? undefined : redirectUriProblem(redirectUri);
  if (redirectProblem !== undefined) check.add("redirect_uri", redirectProblem);
  const codeChallenge = check.required(parameters, "code_challenge");
  const method = check.required(parameters, "code_challenge_method");
  if (method !== undefined && method !== PKCE_S256) check.add("code_challenge_method", "must be S256");
  if (codeChallenge !== undefined && !isS256CodeChallenge(codeChallenge)) {
    check.add("code_challenge", "must be 43 base64url characters (base64url of a SHA-256 hash)");
  }

  const scope = check.optional(parameters, "scope");
  const issuerState = check.optional(parameters, "issuer_state");
  if (issuerState !== undefined && !UUID.test(issuerState)) check.add("issuer_state", "must be a UUID");
  const detailsValue = check.optional(parameters, "authorization_details");
  const details = detailsValue === undefined ? undefined : authorizationDetailsOf(detailsValue);
  if (typeof details === "string") check.add("authorization_details", details);
  const state = check.optional(parameters, "state");
  if (state !== undefined && state.length > MAX_STATE_LENGTH) {
    check.add("state", `must be at most ${MAX_STATE_LENGTH} characters`);
  }
  const dpopJkt = check.optional(parameters, "dpop_jkt");
  if (dpopJkt !== undefined && !JWK_THUMBPRINT.test(dpopJkt)) {
    check.add("dpop_jkt", "must be a base64url SHA-256 JWK thumbprint");
  }
  if (check.errors.length > 0) {
    throw new InvalidRequest(describeFieldErrors(check.errors), { fieldErrors: check.errors });
  }
  return {
    clientId: clientId as string,
    redirectUri: redirectUri as string,
    codeChallenge: codeChallenge as string,
    scopes: scope === undefined ? [] : [...new Set(scope.split(" ").filter(Boolean))],
    issuerState: issuerState?.toLowerCase(),
    authorizationDetails: details as AuthorizationDetail[] | undefined,
    state,
    dpopJkt,
  };
}
