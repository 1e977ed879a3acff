/**
 * An organization registered in the trust registry (this service's README). One account per tenant: the
 * account UUID logs in, the tenant identifier scopes offers, credential configurations and DIDs.
 */
export const tenantStatuses = ["APPROVED", "PENDING"] as const;
export type TenantStatus = (typeof tenantStatuses)[number];

/**
 * Who may become a tenant through the public `POST /v1/apply`: everyone at once (`open`), everyone
 * pending an operator's approval (`approval`), or nobody (`closed`: tenants come from the operator).
 */
export const tenantAdmissions = ["open", "approval", "closed"] as const;
export type TenantAdmission = (typeof tenantAdmissions)[number];

export interface TenantAccount {
  /** UUID v4 assigned at registration; the organization login identifier. */
  accountUuid: string;
  /** Lowercase tenant identifier as it appears in URLs. */
  tenant: string;
  name: string;
  email: string | null;
  /** argon2id PHC string; null for tenants created by the operator, which cannot log in. */
  passwordHash: string | null;
  isIssuer: boolean;
  isVerifier: boolean;
  /**
   * APPROVED at self-registration under `open` admission and when the operator declares or approves
   * it; PENDING under `approval` admission until then. PENDING accounts' API keys are refused with
   * `Account is not approved`.
   */
  status: TenantStatus;
  createdAt: Date;
  /** When ApplyTenant last reactivated it after a deactivation (offers made before stay expired). */
  reactivatedAt?: Date;
}

/** A credential configuration provisioned for a tenant from a registered credential type. */
export interface CredentialConfiguration {
  /** credential_configuration_id in the tenant's issuer metadata (see credentialConfigurationId). */
  id: string;
  type: string;
  version: string;
  vct: string;
}

export type Role = "issuer" | "verifier";

export function rolesOf(account: Pick<TenantAccount, "isIssuer" | "isVerifier">): Role[] {
  const roles: Role[] = [];
  if (account.isIssuer) roles.push("issuer");
  if (account.isVerifier) roles.push("verifier");
  return roles;
}
