import type { CredentialConfiguration, TenantAccount, TenantStatus } from "./tenant.js";
import type { TenantLifecycleEvent } from "./tenant-lifecycle.js";

/** A tenant to create, with its first API key (hash only) and its credential configurations. */
export interface NewTenant {
  accountUuid: string;
  tenant: string;
  name: string;
  email: string | null;
  passwordHash: string | null;
  isIssuer: boolean;
  isVerifier: boolean;
  status: TenantStatus;
  apiKeyHash: string;
  credentialConfigurations: CredentialConfiguration[];
}

/** Which uniqueness rule a new tenant broke. */
export class DuplicateTenantError extends Error {
  override name = "DuplicateTenantError";
  constructor(readonly field: "tenant" | "email") {
    super(`duplicate ${field}`);
  }
}

/** What TenantRepository.deactivate did. */
export interface TenantDeactivation {
  found: boolean;
  /** True when this call deactivated the tenant (false: already deactivated, or not found). */
  deactivated: boolean;
  revokedApiKeys: number;
}

/**
 * Where tenants, their API key hashes and credential configurations are kept (implemented in store/).
 * Lookups see active tenants only: a deactivated tenant (DeleteTenant) is unknown to them, but its
 * identifier and email stay taken.
 */
export interface TenantRepository {
  /**
   * Inserts the tenant, its API key hash and configurations atomically. Throws DuplicateTenantError
   * when the tenant identifier or the email (ignoring case) is taken, also under concurrency.
   */
  create(tenant: NewTenant): Promise<void>;
  findByAccountUuid(accountUuid: string): Promise<TenantAccount | undefined>;
  findByTenant(tenant: string): Promise<TenantAccount | undefined>;
  /** Whether an account uses this email, ignoring case. */
  emailExists(email: string): Promise<boolean>;
  /** The account owning a non-revoked API key with this SHA-256 hash, with the stored hash. */
  findByApiKeyHash(keyHash: string): Promise<{ account: TenantAccount; keyHash: string } | undefined>;
  /** Revokes every key of the tenant and stores the new hash, atomically; false when the tenant is unknown. */
  replaceApiKeys(tenant: string, newKeyHash: string): Promise<boolean>;
  /** Revokes every key of the tenant; the number revoked, undefined when the tenant is unknown. */
  revokeApiKeys(tenant: string): Promise<number | undefined>;
  /**
   * Deactivates the tenant, revokes its keys, removes its webhooks and records the transition
   * (`actor`: who asked) in the lifecycle audit record, atomically.
   */
  deactivate(tenant: string, actor?: string): Promise<TenantDeactivation>;
  /**
   * Reactivates a deactivated tenant with a new key hash and records the transition, atomically;
   * false when it is not deactivated.
   */
  reactivate(tenant: string, newKeyHash: string, actor?: string): Promise<boolean>;
  /** The tenant's lifecycle facts, deactivated or not (undefined when it never existed). */
  findLifecycle(tenant: string): Promise<{ isIssuer: boolean; deactivatedAt: Date | null } | undefined>;
  /** The audit record of the tenant's lifecycle transitions, oldest first. */
  listLifecycleEvents(tenant: string): Promise<{ event: TenantLifecycleEvent; actor: string; at: Date }[]>;
  /** Moves an active tenant to APPROVED; undefined when unknown, else whether it was pending until now. */
  approve(tenant: string): Promise<{ wasPending: boolean } | undefined>;
  /** Changes name and roles (operator reconcile). */
  updateProfile(tenant: string, profile: { name: string; isIssuer: boolean; isVerifier: boolean }): Promise<void>;
  listCredentialConfigurations(tenant: string): Promise<CredentialConfiguration[]>;
  /** Adds configurations the tenant does not have yet (by id); existing ones are left alone. */
  addCredentialConfigurations(tenant: string, configurations: CredentialConfiguration[]): Promise<void>;
  /** Adds the configurations to every active tenant that does not have them yet; answers how many rows were added. */
  addCredentialConfigurationsToAll(configurations: CredentialConfiguration[]): Promise<number>;
}
