import { parsePemCertificates } from "@attesto/protocol";
import { baseConfigShape, loadConfig } from "@attesto/runtime/config";
import { keyEncryptionKeysSchema } from "@attesto/runtime/crypto";
import { outboundConfigShape } from "@attesto/runtime/http";
import { z } from "zod";

export const verifierPorts = { public: 8083, internal: 9083 };

const isPemCertificateBundle = (value: string) => {
  try {
    parsePemCertificates(value);
    return true;
  } catch {
    return false;
  }
};

/** Every variable is documented in README.md. */
export const verifierConfigSchema = z.object({
  ...baseConfigShape({ port: verifierPorts.public, internalPort: verifierPorts.internal, databaseSchema: "verifier" }),
  /** Trust registry internal API: API keys (TenantService) and platform trust anchors (KeyCustodyService). */
  TRUST_REGISTRY_INTERNAL_URL: z.url().default("http://localhost:9085"),
  /** Ledger internal API: did:ledger resolution. */
  LEDGER_INTERNAL_URL: z.url().default("http://localhost:9088"),
  /** Scheduler internal API: the tenants' verification.completed / verification.failed webhooks. */
  SCHEDULER_INTERNAL_URL: z.url().default("http://localhost:9087"),
  /** Key-encryption keys sealing each session's verifier key and response-decryption key at rest. */
  KEY_ENCRYPTION_KEYS: keyEncryptionKeysSchema,
  /** Extra X.509 trust anchors (PEM bundle) for x5c chains, beside the platform root CA. */
  TRUSTED_X509_ROOTS_PEM: z
    .string()
    .refine(isPemCertificateBundle, "must be one or more PEM CERTIFICATE blocks")
    .optional(),
  /** How long the platform trust anchors (GetTrustAnchors) are cached before they are asked for again. */
  TRUST_ANCHORS_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  /**
   * The outbound request guard (OUTBOUND_ALLOW_HOSTS, OUTBOUND_ALLOW_HTTP, OUTBOUND_TIMEOUT_MS,
   * OUTBOUND_MAX_RESPONSE_BYTES) for issuers' JWT VC Issuer Metadata, JWKS and Status List Tokens.
   */
  ...outboundConfigShape(),
  /** How long a fetched JWT VC Issuer Metadata or JWKS document is reused. */
  ISSUER_METADATA_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  /**
   * Longest a Status List Token is reused: its `ttl` shortens it, its `exp` ends it. 0 fetches the
   * list for every presentation.
   */
  STATUS_LIST_MAX_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  /** How long the list of issuers registered on the platform is reused (a miss asks again). */
  REGISTERED_ISSUERS_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  /** Tolerance on credential iat/nbf/exp and on a KB-JWT iat in the future. */
  CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(600).default(60),
  /** Oldest acceptable KB-JWT iat. */
  KB_JWT_MAX_AGE_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
  /**
   * A presentation still `in_progress` this long after it arrived was interrupted (its verifier
   * died): it is marked `failed` (reason `interrupted`). Longer than any verification takes. Only
   * earlier versions store `in_progress`; this one verifies first and records the outcome in one
   * write, so a verifier that dies mid-verification leaves the session `pending` for the wallet.
   */
  VERIFICATION_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(600).default(10),
});

export type VerifierConfig = z.infer<typeof verifierConfigSchema>;

export const loadVerifierConfig = (env: Record<string, string | undefined>): VerifierConfig =>
  loadConfig(verifierConfigSchema, env);
