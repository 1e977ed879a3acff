import { ledgerV1, schemaV1 } from "@attesto/proto";
import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import { createArgon2PasswordHasher } from "@attesto/runtime/passwords";
import type { ServiceContext } from "@attesto/runtime/service";
import type { Client } from "@connectrpc/connect";
import { createLedgerDidRegistry } from "./clients/ledger-did-registry.js";
import { createSchemaRegistryCatalog } from "./clients/schema-registry-catalog.js";
import type { TrustRegistryConfig } from "./config.js";
import { createKeyCustody, type KeyCustody } from "./custody/index.js";
import type { TrustRegistryDomain } from "./domain/dependencies.js";
import { createLoginTokens } from "./domain/login-token.js";
import type { Clock, PasswordHasher } from "./domain/ports.js";
import { createDidStore } from "./store/did.store.js";
import { createTenantStore } from "./store/tenant.store.js";
import { createWebhookStore } from "./store/webhook.store.js";

/** The edges of the service: other services, key custody, time. Tests pass their own. */
export interface TrustRegistryDeps {
  schemaTypes: Client<typeof schemaV1.SchemaService>;
  ledger: Client<typeof ledgerV1.LedgerService>;
  custody: KeyCustody;
  clock?: Clock;
  passwords?: PasswordHasher;
}

/**
 * Real clients from configuration: the schema registry and the ledger over Connect, custody on the
 * database. `clock` (default: the system clock) is the time custody and the use cases read.
 */
export function createDependencies(context: ServiceContext<TrustRegistryConfig>, clock?: Clock): TrustRegistryDeps {
  const { config } = context;
  return {
    schemaTypes: context.rpcClient(schemaV1.SchemaService, {
      baseUrl: config.SCHEMA_REGISTRY_INTERNAL_URL,
      audience: "schema-registry",
    }),
    ledger: context.rpcClient(ledgerV1.LedgerService, { baseUrl: config.LEDGER_INTERNAL_URL, audience: "ledger" }),
    custody: createCustody(context, clock),
    ...(clock ? { clock } : {}),
  };
}

/** Key custody on the service's database, under the configured key-encryption keys and issuing CA. */
export function createCustody(context: ServiceContext<TrustRegistryConfig>, clock?: Clock): KeyCustody {
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
    ...(clock ? { now: clock } : {}),
  });
}

/**
 * The tenant's domain-linkage origin: DOMAIN_LINKAGE_ORIGIN when set, else the origin of the
 * credential issuer, under which every tenant's issuer (`<issuer>/<tenant>`) is served.
 */
export function domainLinkageOriginOf(config: TrustRegistryConfig): (tenant: string) => string {
  const origin = new URL(config.DOMAIN_LINKAGE_ORIGIN ?? config.CREDENTIAL_ISSUER_URL).origin;
  return () => origin;
}

/** The use cases' dependencies: stores on the context's database plus the given edges. */
export function createDomain(
  context: ServiceContext<TrustRegistryConfig>,
  deps: TrustRegistryDeps,
): TrustRegistryDomain {
  const { config } = context;
  const clock = deps.clock ?? (() => new Date());
  return {
    tenants: createTenantStore(context.db, clock),
    dids: createDidStore(context.db, clock),
    credentialTypes: createSchemaRegistryCatalog(deps.schemaTypes),
    ledger: createLedgerDidRegistry(deps.ledger),
    custody: deps.custody,
    tenantAdmission: config.TENANT_ADMISSION,
    passwords: deps.passwords ?? createArgon2PasswordHasher(),
    loginTokens: createLoginTokens({
      secret: config.LOGIN_TOKEN_SECRET,
      issuer: context.publicUrl,
      ttlSeconds: config.LOGIN_TOKEN_TTL_SECONDS,
      clock,
    }),
    apiKeyFormat: { prefix: config.API_KEY_PREFIX, environment: config.API_KEY_ENVIRONMENT },
    clock,
    domainLinkageOrigin: domainLinkageOriginOf(config),
    issuerUrlOf: (tenant) => `${config.CREDENTIAL_ISSUER_URL.replace(/\/+$/, "")}/${tenant}`,
    webhooks: createWebhookStore(context.db, clock),
    webhookSealer: createEnvelopeSealer(config.KEY_ENCRYPTION_KEYS),
  };
}
