import type { KeyCustody } from "../custody/key-custody.js";
import type { ApiKeyFormat } from "./api-key.js";
import type { DidRepository } from "./did-repository.js";
import type { LoginTokens } from "./login-token.js";
import type { Clock, CredentialTypeCatalog, DidLedger, PasswordHasher, SecretSealer } from "./ports.js";
import type { TenantAdmission } from "./tenant.js";
import type { TenantRepository } from "./tenant-repository.js";
import type { WebhookRepository } from "./webhook-repository.js";

/** What the use cases work with, built once per app from the service context (app.ts). */
export interface TrustRegistryDomain {
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
