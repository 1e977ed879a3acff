/**
 * The tenant lifecycle, written down in one place (this service's README, "Tenant lifecycle"):
 * the states a tenant can be in and what each allows. Every other service asks the trust registry
 * (over internal RPC, answered from PostgreSQL on every call) instead of deciding for itself:
 * GetTenant and AuthenticateApiKey know active tenants only, CheckIssuerActive (through the
 * credential issuer's GetTenant) gates token redemption and `/credential`, and GetIssuerStanding
 * gates the verifier's issuer_trust check.
 *
 * - `active`: everything its roles allow. (Approval, `APPROVED`/`PENDING`, is orthogonal: a pending
 *   tenant's API keys are refused with `Account is not approved`.)
 * - `deactivated` (TenantService.DeleteTenant): API keys revoked, login refused, webhooks removed;
 *   open offers can no longer be redeemed, tokens already minted no longer yield credentials, its
 *   metadata documents are 404, and verifiers treat its credentials as untrusted
 *   (`issuer_trust` fails with `issuer_deactivated`). Its status lists stay served so that anyone
 *   holding one of its credentials sees the last status. Records stay (the identifier is never
 *   reused by someone else). Reactivation is an operator action (ApplyTenant) with a new API key;
 *   it records `reactivated_at`, before which every offer stays expired (GetTenant answers it).
 *
 * Every transition is recorded in `tenant_lifecycle_events` (who, what, when) in the same
 * transaction as the change itself.
 */
export const tenantStates = ["active", "deactivated"] as const;
export type TenantState = (typeof tenantStates)[number];

/** What a tenant may do, or what may be done in its name. */
export const tenantCapabilities = [
  /** Its API keys authenticate; its organization login works. */
  "act",
  /** Its offers are redeemed and its tokens yield credentials. */
  "issue",
  /** Its issuer metadata, JWT VC issuer metadata and landing page are served. */
  "publish_metadata",
  /** Verifiers count it as a registered issuer. */
  "be_trusted",
  /** Its Token Status Lists are served. */
  "serve_status_lists",
] as const;
export type TenantCapability = (typeof tenantCapabilities)[number];

const ALLOWED: Record<TenantState, ReadonlySet<TenantCapability>> = {
  active: new Set(tenantCapabilities),
  deactivated: new Set(["serve_status_lists"]),
};

/** Whether a tenant in `state` may do `capability`. */
export function allows(state: TenantState, capability: TenantCapability): boolean {
  return ALLOWED[state].has(capability);
}

/** The state of a stored tenant: deactivated once `deactivated_at` is set. */
export const stateOf = (deactivatedAt: Date | null): TenantState => (deactivatedAt ? "deactivated" : "active");

/** The audited transitions. */
export type TenantLifecycleEvent = "deactivated" | "reactivated";
