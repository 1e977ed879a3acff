import { isS256CodeChallenge, PKCE_S256 } from "@attesto/protocol";
import { z } from "zod";
import type { AuthorizationDetail, ParParameters } from "../domain/par/par-parameters.js";
import { optional, present, required } from "./oauth-form-endpoint.js";

/**
 * The form body of POST /v1/par (RFC 9126, this service's README): one schema for the check, the
 * type and the OpenAPI document (application/x-www-form-urlencoded). A failing body is one 400
 * `invalid_request` naming every failing parameter; unknown parameters (resource, ...) are ignored.
 */

/** PAR `state` is at most 4096 characters. */
export const MAX_STATE_LENGTH = 4096;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JWK_THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;
/** Schemes a browser must never be sent to with a code. */
const FORBIDDEN_REDIRECT_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:"]);

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

const problemOf = (details: AuthorizationDetail[] | string) => (typeof details === "string" ? details : undefined);

export const zParRequest = z
  .object({
    request_uri: z
      .never({ error: "must not be sent to the pushed authorization request endpoint" })
      .optional()
      .describe("Not allowed here (RFC 9126 §2.1)"),
    request: optional("Not supported (request objects)", () => "(a request object) is not supported"),
    response_type: required("Must be code", (value) => (value === "code" ? undefined : "must be code")),
    client_id: required("The wallet's client identifier"),
    redirect_uri: required("Where the authorization response goes (absolute, no fragment)", redirectUriProblem),
    code_challenge: required("base64url(SHA-256(code_verifier)): 43 characters", (value) =>
      isS256CodeChallenge(value) ? undefined : "must be 43 base64url characters (base64url of a SHA-256 hash)",
    ),
    code_challenge_method: required("Must be S256", (value) => (value === PKCE_S256 ? undefined : "must be S256")),
    scope: optional("Space-separated credential configuration ids"),
    issuer_state: optional("UUID from the credential offer's authorization_code grant", (value) =>
      UUID.test(value) ? undefined : "must be a UUID",
    ),
    authorization_details: optional("JSON array of RFC 9396 openid_credential items", (value) =>
      problemOf(authorizationDetailsOf(value)),
    ),
    state: optional(`Returned with the authorization response (at most ${MAX_STATE_LENGTH} characters)`, (value) =>
      value.length > MAX_STATE_LENGTH ? `must be at most ${MAX_STATE_LENGTH} characters` : undefined,
    ),
    dpop_jkt: optional("RFC 9449 §10: the JWK SHA-256 thumbprint of the DPoP key to bind the code to", (value) =>
      JWK_THUMBPRINT.test(value) ? undefined : "must be a base64url SHA-256 JWK thumbprint",
    ),
  })
  .loose()
  .meta({
    examples: [
      {
        response_type: "code",
        client_id: "https://wallet.example",
        redirect_uri: "https://wallet.example/callback",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
        scope: "employee-badge",
        issuer_state: "0b7e5c2e-3f1a-4d2b-9c8e-6a5f4e3d2c1b",
        state: "af0ifjsldkj",
      },
    ],
  });

/** The checked form body as the domain takes it. */
export function parParametersOf(body: z.output<typeof zParRequest>): ParParameters {
  const scope = present(body.scope);
  const details = present(body.authorization_details);
  return {
    clientId: body.client_id,
    redirectUri: body.redirect_uri,
    codeChallenge: body.code_challenge,
    scopes: scope === undefined ? [] : [...new Set(scope.split(" ").filter(Boolean))],
    issuerState: present(body.issuer_state)?.toLowerCase(),
    authorizationDetails:
      details === undefined ? undefined : (authorizationDetailsOf(details) as AuthorizationDetail[]),
    state: present(body.state),
    dpopJkt: present(body.dpop_jkt),
  };
}
