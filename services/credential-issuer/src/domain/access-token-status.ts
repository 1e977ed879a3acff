/**
 * Whether the authorization server revoked an access token before its expiry (a replayed
 * authorization code revokes the token the code issued). Only tokens marked `revocable` are
 * looked up. Throws a 503 AppError when the authorization server cannot answer: a token whose
 * status is unknown must never get a credential.
 */
export interface AccessTokenStatus {
  isRevoked(jti: string): Promise<boolean>;
}
