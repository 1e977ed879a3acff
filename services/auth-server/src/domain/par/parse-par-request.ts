import { isS256CodeChallenge, PKCE_S256 } from "@attesto/protocol";
import { InvalidRequest } from "@attesto/runtime/errors";
import { optionalParameter, requiredParameter, type TokenParameters } from "../token/token-parameters.js";

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

function redirectUriOf(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidRequest("redirect_uri must be an absolute URI");
  }
  if (FORBIDDEN_REDIRECT_SCHEMES.has(url.protocol)) throw new InvalidRequest("redirect_uri scheme is not allowed");
  if (value.includes("#")) throw new InvalidRequest("redirect_uri must not contain a fragment");
  return value;
}

function authorizationDetailsOf(value: string): AuthorizationDetail[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidRequest("authorization_details must be a JSON array");
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new InvalidRequest("authorization_details must be a non-empty JSON array");
  }
  for (const item of parsed) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw new InvalidRequest("authorization_details entries must be JSON objects");
    }
    if (typeof (item as { type?: unknown }).type !== "string") {
      throw new InvalidRequest("authorization_details entries must have a type");
    }
  }
  return parsed as AuthorizationDetail[];
}

/**
 * Step 1 of POST /v1/par: the parameters, in the order this service's README lists them. Missing required ones and
 * malformed values are 400 `invalid_request` naming the parameter; `request_uri` must not be sent
 * (RFC 9126 §2.1); unknown parameters (resource, ...) are ignored.
 */
export function parseParRequest(parameters: TokenParameters): ParParameters {
  if (parameters.request_uri !== undefined) {
    throw new InvalidRequest("request_uri must not be sent to the pushed authorization request endpoint");
  }
  if (optionalParameter(parameters, "request") !== undefined) {
    throw new InvalidRequest("request objects (the request parameter) are not supported");
  }
  const responseType = requiredParameter(parameters, "response_type");
  if (responseType !== "code") throw new InvalidRequest("response_type must be code");
  const clientId = requiredParameter(parameters, "client_id");
  const redirectUri = redirectUriOf(requiredParameter(parameters, "redirect_uri"));
  const codeChallenge = requiredParameter(parameters, "code_challenge");
  const method = requiredParameter(parameters, "code_challenge_method");
  if (method !== PKCE_S256) throw new InvalidRequest("code_challenge_method must be S256");
  if (!isS256CodeChallenge(codeChallenge)) {
    throw new InvalidRequest("code_challenge must be 43 base64url characters (base64url of a SHA-256 hash)");
  }

  const scope = optionalParameter(parameters, "scope");
  const issuerState = optionalParameter(parameters, "issuer_state");
  if (issuerState !== undefined && !UUID.test(issuerState)) throw new InvalidRequest("issuer_state must be a UUID");
  const details = optionalParameter(parameters, "authorization_details");
  const state = optionalParameter(parameters, "state");
  if (state !== undefined && state.length > MAX_STATE_LENGTH) {
    throw new InvalidRequest(`state must be at most ${MAX_STATE_LENGTH} characters`);
  }
  const dpopJkt = optionalParameter(parameters, "dpop_jkt");
  if (dpopJkt !== undefined && !JWK_THUMBPRINT.test(dpopJkt)) {
    throw new InvalidRequest("dpop_jkt must be a base64url SHA-256 JWK thumbprint");
  }
  return {
    clientId,
    redirectUri,
    codeChallenge,
    scopes: scope === undefined ? [] : [...new Set(scope.split(" ").filter(Boolean))],
    issuerState: issuerState?.toLowerCase(),
    authorizationDetails: details === undefined ? undefined : authorizationDetailsOf(details),
    state,
    dpopJkt,
  };
}
