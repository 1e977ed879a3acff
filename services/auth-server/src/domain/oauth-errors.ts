import { OAuthError } from "@attesto/runtime";

interface OAuthErrorOptions {
  cause?: unknown;
  headers?: Record<string, string>;
}

/** One class per protocol error code (RFC 6749 §5.2, RFC 9449 §8), made by one factory. */
function oauthErrorClass(status: number, code: string) {
  return class extends OAuthError {
    static readonly code = code;
    constructor(description: string, options: OAuthErrorOptions = {}) {
      super(status, code, description, options);
    }
  };
}

export class InvalidRequest extends oauthErrorClass(400, "invalid_request") {}
export class InvalidGrant extends oauthErrorClass(400, "invalid_grant") {}
export class UnsupportedGrantType extends oauthErrorClass(400, "unsupported_grant_type") {}
export class InvalidDpopProof extends oauthErrorClass(400, "invalid_dpop_proof") {}
/** RFC 6749 §4.1.2.1: a requested scope value the client may not have. */
export class InvalidScope extends oauthErrorClass(400, "invalid_scope") {}
/** RFC 9396 §5: authorization_details with an unknown type or a value the client may not have. */
export class InvalidAuthorizationDetails extends oauthErrorClass(400, "invalid_authorization_details") {}
/** RFC 6749 §5.2: client authentication failed (here: attest_jwt_client_auth); always 401. */
export class InvalidClient extends oauthErrorClass(401, "invalid_client") {}

/** RFC 9449 §8: the client must retry with the nonce in the `DPoP-Nonce` header. */
export class UseDpopNonce extends oauthErrorClass(400, "use_dpop_nonce") {
  constructor(description: string, options: { nonce: string; cause?: unknown }) {
    super(description, { cause: options.cause, headers: { "DPoP-Nonce": options.nonce } });
  }
}

/**
 * 503: a service this request depends on is unreachable. Its description is shown (the runtime
 * hides 5xx messages by default) because it names no internals, only which party is down.
 */
export class Unavailable extends oauthErrorClass(503, "unavailable") {
  override get expose(): boolean {
    return true;
  }
}
