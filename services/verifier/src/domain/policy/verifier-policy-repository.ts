import type { VerifierPolicy } from "./verifier-policy.js";

/** Where verifier policies live (PostgreSQL; the store implements it). Every call is scoped to a tenant. */
export interface VerifierPolicyRepository {
  /**
   * Inserts or replaces the policy (tenant, name), unless the stored one has the same digest.
   * Returns the stored policy and whether anything changed.
   */
  apply(policy: VerifierPolicy): Promise<{ policy: VerifierPolicy; changed: boolean }>;
  /** Removes a policy; false when there was none. */
  delete(tenant: string, name: string): Promise<boolean>;
  find(tenant: string, name: string): Promise<VerifierPolicy | undefined>;
  /** The tenant's policies, by name. */
  listByTenant(tenant: string): Promise<VerifierPolicy[]>;
}
