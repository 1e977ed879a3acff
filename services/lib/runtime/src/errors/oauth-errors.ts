import { type AppErrorOptions, OAuthError } from "./app-error.js";

/**
 * The OAuth error model of every endpoint that answers `{error, error_description}`: one class per
 * error code, grouped by the specification that defines it. Status codes, codes and headers are a
 * contract with wallets: change them here or nowhere.
 */

type Options = Omit<AppErrorOptions, "shape">;

/** A class for one error code at one status. */
function oauthErrorClass(status: number, code: string) {
  return class extends OAuthError {
    static readonly code = code;
    constructor(description: string, options: Options = {}) {
      super(status, code, description, options);
    }
  };
}

// RFC 6749 §5.2 (token endpoint; RFC 9126 §2.3 reuses them at the PAR endpoint), §4.1.2.1 for scope.
export class InvalidRequest extends oauthErrorClass(400, "invalid_request") {}
/** Client authentication failed (here: attest_jwt_client_auth); always 401. */
export class InvalidClient extends oauthErrorClass(401, "invalid_client") {}
export class InvalidGrant extends oauthErrorClass(400, "invalid_grant") {}
export class UnsupportedGrantType extends oauthErrorClass(400, "unsupported_grant_type") {}
/** A requested scope value the client may not have. */
export class InvalidScope extends oauthErrorClass(400, "invalid_scope") {}
/** RFC 6749 §4.1.2.1: the server cannot handle the request now (the client may retry). */
export class TemporarilyUnavailable extends oauthErrorClass(503, "temporarily_unavailable") {
  override get expose(): boolean {
    return true;
  }
}

// RFC 9396 §5
/** authorization_details with an unknown type or a value the client may not have. */
export class InvalidAuthorizationDetails extends oauthErrorClass(400, "invalid_authorization_details") {}

// OpenID4VCI 1.0 §8.3.1.2: credential error response.
export class InvalidCredentialRequest extends oauthErrorClass(400, "invalid_credential_request") {}
export class UnknownCredentialConfiguration extends oauthErrorClass(400, "unknown_credential_configuration") {}
export class InvalidProof extends oauthErrorClass(400, "invalid_proof") {}
/** The request is well formed but the issuer will not honour it (the wallet should not retry). */
export class CredentialRequestDenied extends oauthErrorClass(400, "credential_request_denied") {}

// OpenID4VCI 1.0 §11.3: notification error response.
/** The notification_id is unknown, or was not issued to the presented access token. */
export class InvalidNotificationId extends oauthErrorClass(400, "invalid_notification_id") {}
export class InvalidNotificationRequest extends oauthErrorClass(400, "invalid_notification_request") {}

/**
 * 503: a service this request depends on is unreachable. Its description is shown (the runtime
 * hides 5xx messages by default) because it names no internals, only which party is down.
 */
export class Unavailable extends oauthErrorClass(503, "unavailable") {
  override get expose(): boolean {
    return true;
  }
}

// RFC 6750 §3 and RFC 9449 §7.1: a resource server's challenge.

/** The authentication scheme a resource server's challenge names. */
export type AuthScheme = "Bearer" | "DPoP";

const quoted = (value: string) => `"${value.replace(/["\\]/g, "\\$&")}"`;

/**
 * A `WWW-Authenticate` challenge with an error (RFC 6750 §3, RFC 9449 §7.1); a DPoP challenge names
 * the proof algorithms the resource server accepts (`algs`, space-separated).
 */
export function authenticateChallenge(
  scheme: AuthScheme,
  error: string,
  description: string,
  algs: readonly string[] = [],
): string {
  const params = [`error=${quoted(error)}`, `error_description=${quoted(description)}`];
  if (scheme === "DPoP" && algs.length > 0) params.push(`algs=${quoted(algs.join(" "))}`);
  return `${scheme} ${params.join(", ")}`;
}

/** RFC 6750 §3.1: 401 `invalid_token`, with the challenge of the scheme the client must use. */
export class InvalidToken extends OAuthError {
  static readonly code = "invalid_token";
  constructor(description: string, options: { scheme: AuthScheme; algs?: readonly string[]; cause?: unknown }) {
    super(401, "invalid_token", description, {
      cause: options.cause,
      headers: {
        "www-authenticate": authenticateChallenge(options.scheme, "invalid_token", description, options.algs),
      },
    });
  }
}

// RFC 9449: DPoP errors. Their status and headers depend on who answers (dpopErrorResponse).

/** RFC 9449 §8 (authorization server), §9 (resource server): retry with the nonce in `DPoP-Nonce`. */
export class UseDpopNonce extends OAuthError {
  static readonly code = "use_dpop_nonce";
  constructor(description: string, options: { status: 400 | 401; headers: Record<string, string>; cause?: unknown }) {
    super(options.status, "use_dpop_nonce", description, options);
  }
}

/** RFC 9449 §5 (token endpoint), §7.1 (resource server): the DPoP proof is not acceptable. */
export class InvalidDpopProof extends OAuthError {
  static readonly code = "invalid_dpop_proof";
  constructor(
    description: string,
    options: { status?: 400 | 401; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(options.status ?? 400, "invalid_dpop_proof", description, options);
  }
}

/** Who checked the DPoP proof: the rules of its error response differ (RFC 9449 §5, §7.1, §8, §9). */
export type DpopErrorRules =
  | {
      /** Token and PAR endpoints: 400 with the error in the body, a new nonce in `DPoP-Nonce`. */
      server: "authorization-server";
      nonce: () => string;
    }
  | {
      /**
       * A protected resource: 401 with a `WWW-Authenticate: DPoP error=…, algs=…` challenge (and
       * `DPoP-Nonce` for use_dpop_nonce). `status` 400 keeps clients built for a 400 working.
       */
      server: "resource-server";
      nonce: () => string;
      algs: readonly string[];
      status?: 400 | 401;
    };

/** A failed DPoP check, as the protocol library reports it. */
export interface DpopFailure {
  code: "use_dpop_nonce" | "invalid_dpop_proof";
  message: string;
}

/** The one mapping of a failed DPoP check to its error response, for either kind of server. */
export function dpopErrorResponse(failure: DpopFailure, rules: DpopErrorRules): OAuthError {
  const options = { cause: failure };
  if (rules.server === "authorization-server") {
    return failure.code === "use_dpop_nonce"
      ? new UseDpopNonce(failure.message, { ...options, status: 400, headers: { "DPoP-Nonce": rules.nonce() } })
      : new InvalidDpopProof(failure.message, { ...options, status: 400 });
  }
  const status = rules.status ?? 401;
  const challenge = authenticateChallenge("DPoP", failure.code, failure.message, rules.algs);
  return failure.code === "use_dpop_nonce"
    ? new UseDpopNonce(failure.message, {
        ...options,
        status,
        headers: { "www-authenticate": challenge, "DPoP-Nonce": rules.nonce() },
      })
    : new InvalidDpopProof(failure.message, { ...options, status, headers: { "www-authenticate": challenge } });
}
