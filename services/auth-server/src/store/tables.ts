import type { Generated } from "kysely";
import type { AuthorizationRequestStatus } from "../domain/authorization/authorization-request.js";

/** A pushed authorization request and its browser step (see AuthorizationRequest for who sets what). */
export interface AuthorizationRequestsTable {
  id: string;
  /** SHA-256 (hex) of the request_uri handle; unique. */
  request_uri_hash: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  state: string | null;
  issuer_state: string | null;
  tenant: string | null;
  offer_id: string | null;
  credential_configuration_ids: string[];
  dpop_jkt: string | null;
  client_attested: boolean;
  status: AuthorizationRequestStatus;
  created_at: Date;
  expires_at: Date;
  browser_session_hash: string | null;
  csrf_token_hash: string | null;
  consent_expires_at: Date | null;
  completed_at: Date | null;
}

/** Authorization codes by SHA-256 (hex); the code itself is never stored. */
export interface AuthorizationCodesTable {
  code_hash: string;
  authorization_request_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  dpop_jkt: string | null;
  client_attested: boolean;
  tenant: string;
  offer_id: string;
  credential_configuration_ids: string[];
  dpop_required: boolean;
  created_at: Date;
  expires_at: Date;
  redeemed_at: Date | null;
  access_token_jti: string | null;
  access_token_expires_at: Date | null;
  revoked_at: Date | null;
}

/** Access tokens revoked because the code that issued them was presented again. */
export interface RevokedAccessTokensTable {
  jti: string;
  expires_at: Date;
  revoked_at: Generated<Date>;
  reason: string;
}

export interface BrowserSessionsTable {
  /** SHA-256 (hex) of the session cookie value. */
  id_hash: string;
  created_at: Date;
  expires_at: Date;
}

/** A pre-authorized code redemption whose answer was lost (`domain/token/redeem-grant.ts`). */
export interface UnansweredRedemptionsTable {
  /** SHA-256 (hex) of the pre-authorized code; the code itself is never stored. */
  code_hash: string;
  redemption_id: string;
  expires_at: Date;
}

export interface AuthServerTables {
  authorization_requests: AuthorizationRequestsTable;
  authorization_codes: AuthorizationCodesTable;
  revoked_access_tokens: RevokedAccessTokensTable;
  browser_sessions: BrowserSessionsTable;
  unanswered_redemptions: UnansweredRedemptionsTable;
}

/** A nullable column as an optional domain field. */
export const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);
