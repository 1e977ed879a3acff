/** What a redeemed grant entitles the token holder to (from the credential issuer's GrantService). */
export interface Grant {
  offerId: string;
  /** Tenant identifier; the credential issuer identifier is `<issuer URL>/<tenant>`. */
  tenant: string;
  credentialConfigurationIds: string[];
  /** X.509 / HAIP path: the credential endpoint requires a DPoP-bound token. */
  dpopRequired: boolean;
  /**
   * The offer's claims as object-key paths, never their values: the consent page lists them (set
   * by the GrantService answers; a grant read back from a stored code has none).
   */
  claimPaths?: string[][];
}

/**
 * The credential issuer as the authorization server sees it. Implementations throw `InvalidGrant`
 * when a grant cannot be redeemed (unknown, used, expired, wrong tx_code) and `Unavailable` (503)
 * when the issuer is unreachable.
 */
export interface GrantRedeemer {
  /**
   * Consumes a pre-authorized code: of concurrent redemptions exactly one redemption id wins; the
   * winning id, repeated within the issuer's window, gets the grant again (a lost answer retried).
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
