import { baseConfigShape, loadConfig } from "@attesto/runtime/config";
import { keyEncryptionKeysSchema } from "@attesto/runtime/crypto";
import { z } from "zod";
import { tenantAdmissions } from "./domain/tenant.js";

export const trustRegistryPorts = { public: 8085, internal: 9085 };

export const trustRegistryConfigSchema = z.object({
  ...baseConfigShape({
    port: trustRegistryPorts.public,
    internalPort: trustRegistryPorts.internal,
    databaseSchema: "trust_registry",
  }),
  SCHEMA_REGISTRY_INTERNAL_URL: z.url().default("http://localhost:9086"),
  LEDGER_INTERNAL_URL: z.url().default("http://localhost:9088"),
  /** Public URL of the credential issuer; its origin is a tenant's default domain-linkage origin. */
  CREDENTIAL_ISSUER_URL: z.url().default("http://localhost:8082"),
  /**
   * Origin (scheme://host[:port]) that tenants' Domain Linkage Credentials link their DIDs to, when
   * tenants are not served under the credential issuer's origin (e.g. behind their own domain).
   */
  DOMAIN_LINKAGE_ORIGIN: z.url().optional(),
  /** API keys look like `<prefix>_<environment>_<48 hex>`. */
  API_KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{0,15}$/)
    .default("attesto"),
  API_KEY_ENVIRONMENT: z
    .string()
    .regex(/^[a-z]{1,16}$/)
    .default("production"),
  /** HS256 secret signing organization login tokens (at least 32 characters). */
  LOGIN_TOKEN_SECRET: z.string().min(32, "LOGIN_TOKEN_SECRET must be at least 32 characters"),
  LOGIN_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86400).default(3600),
  /** Key-encryption keys for private keys at rest (AES-256-GCM envelopes). */
  KEY_ENCRYPTION_KEYS: keyEncryptionKeysSchema,
  /** The platform's issuing CA (PEM). When unset, a CA is generated on first start and kept encrypted. */
  ISSUING_CA_CERT_PEM: z.string().optional(),
  ISSUING_CA_KEY_PEM: z.string().optional(),
  /**
   * countryName (ISO 3166-1 alpha-2) of the CA generated when ISSUING_CA_CERT_PEM is unset, and so of
   * every tenant certificate it issues (ISO/IEC 18013-5 requires it; verifiers match an mDL's
   * `issuing_country` against it). Read when the CA is generated, on first start.
   */
  CA_COUNTRY: z
    .string()
    .regex(/^[A-Z]{2}$/, "CA_COUNTRY must be an ISO 3166-1 alpha-2 country code (two capital letters)")
    .default("UT"),
  /**
   * What public `POST /v1/apply` does: `open` approves every applicant at once; `approval` creates
   * the account PENDING until an operator approves it (TenantService.ApproveTenant, or a Tenant
   * resource); `closed` refuses self-registration (403).
   */
  TENANT_ADMISSION: z.enum(tenantAdmissions).default("open"),
  /** Validity of tenant X.509 signing certificates. */
  SIGNING_CERT_VALIDITY_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
});

export type TrustRegistryConfig = z.infer<typeof trustRegistryConfigSchema>;

export const loadTrustRegistryConfig = (env: Record<string, string | undefined>): TrustRegistryConfig =>
  loadConfig(trustRegistryConfigSchema, env);
