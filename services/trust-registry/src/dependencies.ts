import { ledgerV1, schemaV1 } from "@attesto/proto";
import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import { createArgon2PasswordHasher } from "@attesto/runtime/passwords";
import type { ServiceContext } from "@attesto/runtime/service";
import { createLedgerDidRegistry } from "./clients/ledger-did-registry.js";
import { createSchemaRegistryCatalog } from "./clients/schema-registry-catalog.js";
import type { TrustRegistryConfig } from "./config.js";
import { createKeyCustody, type KeyCustody } from "./custody/index.js";
import { createLoginTokens } from "./domain/login-token.js";
import type { TrustRegistryDependencies } from "./domain/ports.js";
import { createDidStore } from "./store/did.store.js";
import { createTenantStore } from "./store/tenant.store.js";
import { createWebhookStore } from "./store/webhook.store.js";

/**
 * The use cases' dependencies from the service context: stores on its database, the schema registry
 * and the ledger over Connect, key custody on the database, all reading one clock (`context.clock`
 * unless `overrides.clock`). Tests pass doubles of single edges in `overrides`; `service.ts` shares
 * one set per running service between the public app, the internal RPC and start-up work.
 */
export function createDependencies(
  context: ServiceContext<TrustRegistryConfig>,
  overrides: Partial<TrustRegistryDependencies> = {},
): TrustRegistryDependencies {
  const { config } = context;
  const clock = overrides.clock ?? context.clock;
  return {
    tenants: overrides.tenants ?? createTenantStore(context.db, clock),
    dids: overrides.dids ?? createDidStore(context.db, clock),
    credentialTypes:
      overrides.credentialTypes ??
      createSchemaRegistryCatalog(
        context.rpcClient(schemaV1.SchemaService, {
          baseUrl: config.SCHEMA_REGISTRY_INTERNAL_URL,
          audience: "schema-registry",
        }),
      ),
    ledger:
      overrides.ledger ??
      createLedgerDidRegistry(
        context.rpcClient(ledgerV1.LedgerService, { baseUrl: config.LEDGER_INTERNAL_URL, audience: "ledger" }),
      ),
    custody: overrides.custody ?? createCustody(context, clock),
    tenantAdmission: overrides.tenantAdmission ?? config.TENANT_ADMISSION,
    passwords: overrides.passwords ?? createArgon2PasswordHasher(),
    loginTokens:
      overrides.loginTokens ??
      createLoginTokens({
        secret: config.LOGIN_TOKEN_SECRET,
        issuer: context.publicUrl,
        ttlSeconds: config.LOGIN_TOKEN_TTL_SECONDS,
        clock,
      }),
    apiKeyFormat: overrides.apiKeyFormat ?? { prefix: config.API_KEY_PREFIX, environment: config.API_KEY_ENVIRONMENT },
    clock,
    domainLinkageOrigin: overrides.domainLinkageOrigin ?? domainLinkageOriginOf(config),
    issuerUrlOf: overrides.issuerUrlOf ?? ((tenant) => `${config.CREDENTIAL_ISSUER_URL.replace(/\/+$/, "")}/${tenant}`),
    webhooks: overrides.webhooks ?? createWebhookStore(context.db, clock),
    webhookSealer: overrides.webhookSealer ?? createEnvelopeSealer(config.KEY_ENCRYPTION_KEYS),
  };
}

/** Key custody on the service's database, under the configured key-encryption keys and issuing CA. */
function createCustody(context: ServiceContext<TrustRegistryConfig>, clock: () => Date): KeyCustody {
  const { config } = context;
  const issuingCa =
    config.ISSUING_CA_CERT_PEM && config.ISSUING_CA_KEY_PEM
      ? { certPem: config.ISSUING_CA_CERT_PEM, keyPem: config.ISSUING_CA_KEY_PEM }
      : undefined;
  return createKeyCustody({
    db: context.db,
    keyEncryptionKeys: config.KEY_ENCRYPTION_KEYS,
    ...(issuingCa ? { issuingCa } : {}),
    signingCertValidityDays: config.SIGNING_CERT_VALIDITY_DAYS,
    caCountry: config.CA_COUNTRY,
    credentialIssuerUrl: config.CREDENTIAL_ISSUER_URL,
    now: clock,
  });
}

/**
 * The tenant's domain-linkage origin: DOMAIN_LINKAGE_ORIGIN when set, else the origin of the
 * credential issuer, under which every tenant's issuer (`<issuer>/<tenant>`) is served.
 */
function domainLinkageOriginOf(config: TrustRegistryConfig): (tenant: string) => string {
  const origin = new URL(config.DOMAIN_LINKAGE_ORIGIN ?? config.CREDENTIAL_ISSUER_URL).origin;
  return () => origin;
}
