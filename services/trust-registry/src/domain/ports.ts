import type { Ed25519PublicJwk } from "@attesto/protocol";
import type { KeyCustody } from "../custody/key-custody.js";
import type { ApiKeyFormat } from "./api-key.js";
import type { LoginTokens } from "./login-token.js";
import type { CredentialConfiguration, TenantAccount, TenantAdmission, TenantStatus } from "./tenant.js";
import type { TenantDid } from "./tenant-did.js";
import type { TenantLifecycleEvent } from "./tenant-lifecycle.js";

/**
 * The trust registry's ports: every edge the use cases reach (stores, other services, key custody,
 * time) and the aggregate the composition root (`src/dependencies.ts`) builds from them.
 */

/** A credential type registered in the schema registry (only what provisioning needs). */
export interface RegisteredCredentialType {
  type: string;
  version: string;
  vct: string;
}

/** The schema registry, as this service sees it. Failures surface as AppErrors (503 when unreachable). */
export interface CredentialTypeCatalog {
  listActive(): Promise<RegisteredCredentialType[]>;
}

export interface AnchoredDid {
  did: string;
  /** DID URL of the verification method holding the key. */
  keyId: string;
  document: Record<string, unknown>;
}

export interface ResolvedDid {
  document: Record<string, unknown>;
  deactivated: boolean;
}

/** The ledger's DID registry. Failures surface as AppErrors (503 `Ledger is unavailable` when unreachable). */
export interface DidLedger {
  createDid(publicJwk: Ed25519PublicJwk): Promise<AnchoredDid>;
  /** undefined when the ledger does not know the DID. */
  resolveDid(did: string): Promise<ResolvedDid | undefined>;
  /** Best effort clean-up of a DID this service created but could not keep. */
  deactivateDid(did: string): Promise<void>;
}

/** argon2id in production (crypto/), injected so that the domain stays free of native modules. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

export type Clock = () => Date;

/**
 * Seals secrets at rest (the runtime's envelope sealer, `@attesto/runtime/crypto`): `context` binds
 * an envelope to the row it belongs to, so a sealed value copied elsewhere does not open.
 */
export interface SecretSealer {
  seal(plaintext: Uint8Array, context: string): string;
  open(envelope: string, context: string): Uint8Array;
}

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

/** A DID is held by one tenant only. */
export class DidAlreadyHeldError extends Error {
  override name = "DidAlreadyHeldError";
}

/** Where tenants' DIDs are kept (implemented in store/). */
export interface DidRepository {
  /** Throws DidAlreadyHeldError when the DID is already stored (for any tenant). */
  insert(did: Omit<TenantDid, "createdAt" | "status">): Promise<TenantDid>;
  /** The DID's record, whichever tenant holds it (used to tell "yours" from "someone else's"). */
  find(did: string): Promise<TenantDid | undefined>;
  /** The tenant's active DIDs, oldest first. */
  listActive(tenant: string): Promise<TenantDid[]>;
  /** Every active issuer tenant (not deactivated) with its active DIDs, by tenant. */
  listActiveIssuers(): Promise<{ tenant: string; dids: string[] }[]>;
}

/** A webhook endpoint of a tenant. */
export interface TenantWebhook {
  url: string;
  /** Event types delivered to it; empty means every event. */
  events: string[];
}

export interface StoredWebhooks {
  webhooks: TenantWebhook[];
  secretEnvelope: string;
}

/** How the signing secret changed in a replace. */
export type SecretChange = "generated" | "replaced" | "kept";

/** Where tenants' webhook configurations are kept (implemented in store/). */
export interface WebhookRepository {
  /**
   * Replaces the tenant's endpoints atomically (serialized per tenant). The secret becomes
   * `secretEnvelope` when given, else stays as stored, else becomes `generateEnvelope()`.
   * Undefined when the tenant does not exist.
   */
  replace(
    tenant: string,
    webhooks: TenantWebhook[],
    secretEnvelope: string | undefined,
    generateEnvelope: () => string,
  ): Promise<SecretChange | undefined>;
  find(tenant: string): Promise<StoredWebhooks | undefined>;
}

/** What the use cases work with, built once per running service from its context (`createDependencies`). */
export interface TrustRegistryDependencies {
  tenants: TenantRepository;
  dids: DidRepository;
  credentialTypes: CredentialTypeCatalog;
  ledger: DidLedger;
  custody: KeyCustody;
  passwords: PasswordHasher;
  loginTokens: LoginTokens;
  apiKeyFormat: ApiKeyFormat;
  /** What public `POST /v1/apply` does (TENANT_ADMISSION). */
  tenantAdmission: TenantAdmission;
  clock: Clock;
  /** Tenants' webhook endpoints and sealed signing secrets (for the scheduler). */
  webhooks: WebhookRepository;
  /** Seals webhook secrets under KEY_ENCRYPTION_KEYS (context `webhook:<tenant>`). */
  webhookSealer: SecretSealer;
  /** The origin a tenant's Domain Linkage Credentials link its DIDs to (scheme://host[:port]). */
  domainLinkageOrigin(tenant: string): string;
  /** The `iss` of the tenant's credentials: `<CREDENTIAL_ISSUER_URL>/<tenant>`. */
  issuerUrlOf(tenant: string): string;
}
