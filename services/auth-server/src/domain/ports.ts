import type { AccessTokenSigner, ClientAttestationTrust, DpopNonces } from "@attesto/protocol";
import type { AuthorizationCode, NewAuthorizationCode } from "./authorization/authorization-code.js";
import type { AuthorizationRequest, NewAuthorizationRequest } from "./authorization/authorization-request.js";
import type { IssuerDisplay } from "./authorization/issuer-display.js";
import type { Grant } from "./grant.js";

/**
 * The credential issuer as the authorization server sees it. Implementations throw `InvalidGrant`
 * when a grant cannot be redeemed (unknown, used, expired, wrong tx_code) and `Unavailable` (503)
 * when the issuer is unreachable.
 */
export interface GrantRedeemer {
  /**
   * Consumes a pre-authorized code: of concurrent redemptions exactly one redemption id wins; the
   * winning id, repeated within the issuer's window (5 minutes) with the same tx_code, gets the
   * grant again (a lost answer retried); any other id gets `InvalidGrant`.
   */
  redeemPreAuthorizedCode(request: {
    preAuthorizedCode: string;
    txCode: string | undefined;
    redemptionId: string;
  }): Promise<Grant>;
  /** The live authorization-code offer of an `issuer_state` (not consumed); undefined when unknown or expired. */
  resolveIssuerState(issuerState: string): Promise<Grant | undefined>;
  /** Consumes an `issuer_state` once the person approved: of concurrent redemptions exactly one succeeds. */
  redeemIssuerState(issuerState: string): Promise<Grant>;
  /**
   * Throws `InvalidGrant` unless the tenant may issue now (the trust registry's tenant lifecycle,
   * asked fresh through the credential issuer): before an authorization code is exchanged, since
   * its grant was redeemed at consent, possibly before the tenant was deactivated.
   */
  checkIssuerActive(tenant: string): Promise<void>;
}

/**
 * Pre-authorized code redemptions whose call failed without an answer, so the issuer may have
 * committed them (it died before answering, the answer was lost): the only redemptions a later
 * token request may take up, each once (`domain/token/redeem-grant.ts`). By the code's SHA-256.
 */
export interface UnansweredRedemptions {
  /** Records that redemption `redemptionId` of the code went unanswered, until `expiresAt`. */
  record(codeHash: string, redemptionId: string, expiresAt: Date, now: Date): Promise<void>;
  /** The code's unanswered redemption ids not yet expired (at most a few). */
  find(codeHash: string, now: Date): Promise<string[]>;
  /** Removes one: true for exactly one of any number of concurrent callers. */
  take(codeHash: string, redemptionId: string, now: Date): Promise<boolean>;
}

/** The credential issuer metadata of tenants, as far as the consent page needs it. */
export interface IssuerDisplaySource {
  /** Undefined when the metadata cannot be had (the page then shows identifiers). */
  describe(tenant: string): Promise<IssuerDisplay | undefined>;
}

/** Authorization requests on PostgreSQL; every transition is one conditional update (single use under races). */
export interface AuthorizationRequestRepository {
  insert(request: NewAuthorizationRequest): Promise<void>;
  findByRequestUriHash(requestUriHash: string): Promise<AuthorizationRequest | undefined>;
  findById(id: string): Promise<AuthorizationRequest | undefined>;
  /** pushed -> presented, only while unexpired; undefined when another request won or it expired. */
  present(
    requestUriHash: string,
    presentation: { browserSessionHash: string; csrfTokenHash: string; consentExpiresAt: Date; now: Date },
  ): Promise<AuthorizationRequest | undefined>;
  /** presented -> approved | denied, by the session it was shown to, before the consent expires. */
  complete(
    id: string,
    completion: { browserSessionHash: string; decision: "approved" | "denied"; now: Date },
  ): Promise<AuthorizationRequest | undefined>;
}

export interface AuthorizationCodeRepository {
  insert(code: NewAuthorizationCode): Promise<void>;
  find(codeHash: string): Promise<AuthorizationCode | undefined>;
  /** Unredeemed and unexpired -> redeemed, once: of concurrent redemptions exactly one gets the code. */
  redeem(codeHash: string, now: Date): Promise<AuthorizationCode | undefined>;
  /**
   * Records the access token a redemption issued. `revoked` is true when the code was replayed
   * meanwhile: the token is then recorded as revoked too.
   */
  recordAccessToken(codeHash: string, token: { jti: string; expiresAt: Date }): Promise<{ revoked: boolean }>;
  /** A replayed code: marks it revoked and revokes the access token it issued (if any). */
  revoke(codeHash: string, now: Date): Promise<void>;
  /** Whether an access token was revoked (a replayed code's token). */
  isAccessTokenRevoked(jti: string): Promise<boolean>;
}

/**
 * Browser sessions: the cookie holds a random id, the database its SHA-256. A session ties a
 * consent page (and its CSRF token) to the browser it was shown to; GET /end_session deletes it.
 */
export interface BrowserSessionRepository {
  create(session: { idHash: string; createdAt: Date; expiresAt: Date }): Promise<void>;
  isActive(idHash: string, now: Date): Promise<boolean>;
  /** Deletes the session; false when there was none. */
  end(idHash: string): Promise<boolean>;
}

/** What the auth server's routes and RPC handlers work with, built once per service context; tests replace any of it. */
export interface AuthServerDependencies {
  /** The credential issuer's GrantService (its internal Connect API), as the domain calls it. */
  grants: GrantRedeemer;
  accessTokenSigner: AccessTokenSigner;
  dpopNonces: DpopNonces;
  /** Wallet providers whose client attestations are believed. */
  clientAttestationTrust: ClientAttestationTrust;
  /** The credential issuer's metadata, for the consent page. */
  issuerDisplay: IssuerDisplaySource;
  authorizationRequests: AuthorizationRequestRepository;
  authorizationCodes: AuthorizationCodeRepository;
  browserSessions: BrowserSessionRepository;
  unansweredRedemptions: UnansweredRedemptions;
  now: () => Date;
}
