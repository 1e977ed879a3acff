import type { ColumnType, Generated } from "kysely";
import type { TenantStatus } from "../domain/tenant.js";
import type { TenantLifecycleEvent } from "../domain/tenant-lifecycle.js";

/** An organization account; one per tenant. */
export interface TenantsTable {
  account_uuid: string;
  /** Lowercase; unique (index tenants_tenant_key). */
  tenant: string;
  name: string;
  /** Unique ignoring case (index tenants_email_key on lower(email)). */
  email: string | null;
  /** argon2id PHC string; null for operator-created tenants. */
  password_hash: string | null;
  is_issuer: boolean;
  is_verifier: boolean;
  status: TenantStatus;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** Set by TenantService.DeleteTenant: the tenant is hidden from every lookup (migration 0004). */
  deactivated_at: Date | null;
  /** Set by ApplyTenant when it reactivates a deactivated tenant (migration 0006). */
  reactivated_at: Date | null;
}

/** API keys by SHA-256 (lowercase hex); the key itself is never stored. */
export interface ApiKeysTable {
  key_hash: string;
  account_uuid: string;
  created_at: Generated<Date>;
  /** Set when an operator replaced the key; a revoked key is INVALID. */
  revoked_at: Date | null;
}

export interface TenantCredentialConfigurationsTable {
  tenant: string;
  config_id: string;
  type: string;
  version: string;
  vct: string;
  created_at: Generated<Date>;
}

export interface TenantDidsTable {
  /** Primary key: a DID is held by one tenant only. */
  did: string;
  tenant: string;
  /** DID URL of the verification method (JWT `kid`). */
  key_id: string;
  custody_key_id: string;
  method: string;
  source: "created" | "imported";
  status: "active";
  created_at: Generated<Date>;
}

/** A tenant's webhook endpoints (JSON `[{url, events}]`) and its signing secret, sealed. */
export interface TenantWebhooksTable {
  tenant: string;
  endpoints: ColumnType<Array<{ url: string; events: string[] }>, string, string>;
  /** `createEnvelopeSealer` envelope (AAD `webhook:<tenant>`); never the secret itself. */
  secret_envelope: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** The audit record of lifecycle transitions (domain/tenant-lifecycle.ts; migration 0005). */
export interface TenantLifecycleEventsTable {
  id: Generated<string>;
  tenant: string;
  event: TenantLifecycleEvent;
  /** The service identity that asked for it (the operator, the CLI). */
  actor: string;
  at: Date;
}

export interface TrustRegistryTables {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  tenant_credential_configurations: TenantCredentialConfigurationsTable;
  tenant_dids: TenantDidsTable;
  tenant_webhooks: TenantWebhooksTable;
  tenant_lifecycle_events: TenantLifecycleEventsTable;
}
