import { baseConfigShape, loadConfig } from "@attesto/runtime/config";
import { keyEncryptionKeysSchema } from "@attesto/runtime/crypto";
import { DEFAULT_STATUS_LIST_SIZE, isStatusListSize, STATUS_LIST_SIZE_RULE } from "@attesto/runtime/status-list-size";
import { z } from "zod";

export const credentialIssuerPorts = { public: 8082, internal: 9082 };

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;
const url = (fallback: string) =>
  z
    .url()
    .default(fallback)
    .transform((value) => value.replace(/\/+$/, ""));

export const credentialIssuerConfigSchema = z
  .object({
    ...baseConfigShape({
      port: credentialIssuerPorts.public,
      internalPort: credentialIssuerPorts.internal,
      databaseSchema: "credential_issuer",
    }),
    /** Public URL of the authorization server: `authorization_servers` in metadata, the `iss` of access tokens. */
    AUTH_SERVER_URL: url("http://localhost:8081"),
    /** Where the authorization server publishes its access-token keys; `${AUTH_SERVER_URL}/.well-known/jwks.json` when unset. */
    AUTH_SERVER_JWKS_URL: z.url().optional(),
    /** Internal (Connect) URLs of the services the issuer calls. */
    AUTH_SERVER_INTERNAL_URL: url("http://localhost:9081"),
    TRUST_REGISTRY_INTERNAL_URL: url("http://localhost:9085"),
    SCHEMA_REGISTRY_INTERNAL_URL: url("http://localhost:9086"),
    LEDGER_INTERNAL_URL: url("http://localhost:9088"),
    SCHEDULER_INTERNAL_URL: url("http://localhost:9087"),
    /** Public URLs, only for the links on a tenant's landing page. */
    TRUST_REGISTRY_URL: url("http://localhost:8085"),
    SCHEMA_REGISTRY_URL: url("http://localhost:8086"),
    /** HMAC secret of c_nonces (stateless, validated without a database lookup); at least 32 characters. */
    NONCE_SECRET: z.string().min(32, "NONCE_SECRET must be at least 32 characters"),
    C_NONCE_TTL_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
    /**
     * HMAC secret of the DPoP nonces the credential endpoint hands out; at least 32 characters.
     * When unset, a key derived from NONCE_SECRET (under its own label) is used.
     */
    DPOP_NONCE_SECRET: z.string().min(32, "DPOP_NONCE_SECRET must be at least 32 characters").optional(),
    /**
     * Status of `/credential`'s DPoP error responses (use_dpop_nonce, invalid_dpop_proof): 401 with a
     * `WWW-Authenticate: DPoP` challenge, as RFC 9449 §7.1 and §9 have a resource server answer; 400
     * for clients built against the interface table's 400 (the challenge and headers stay the same).
     */
    CREDENTIAL_DPOP_NONCE_STATUS: z.coerce
      .number()
      .pipe(z.union([z.literal(401), z.literal(400)], { error: "CREDENTIAL_DPOP_NONCE_STATUS must be 401 or 400" }))
      .default(401),
    /** Key-encryption keys for issuer private keys kept with offers (AES-256-GCM envelopes). */
    KEY_ENCRYPTION_KEYS: keyEncryptionKeysSchema,
    /** Validity of issued credentials (`exp` - `iat`). */
    CREDENTIAL_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .max(10 * ONE_YEAR_SECONDS)
      .default(ONE_YEAR_SECONDS),
    /**
     * Entries of each new status list (Token Status List): a power of two from 2^10 to 2^20. Large
     * lists give herd privacy (a list's fetch says little about which credential is checked);
     * an Issuer resource may set its tenant's size.
     */
    STATUS_LIST_SIZE: z.coerce
      .number()
      .int()
      .refine(isStatusListSize, { error: STATUS_LIST_SIZE_RULE })
      .default(DEFAULT_STATUS_LIST_SIZE),
    /**
     * `ttl` of Status List Tokens and their HTTP `max-age`: how long a verifier may keep a list
     * before it fetches it again, so how long a revocation can go unseen.
     */
    STATUS_LIST_TTL_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
    /** `exp` - `iat` of Status List Tokens: how long a token may be relied on at all (at least the ttl). */
    STATUS_LIST_TOKEN_LIFETIME_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
  })
  .refine((config) => config.STATUS_LIST_TOKEN_LIFETIME_SECONDS >= config.STATUS_LIST_TTL_SECONDS, {
    error: "STATUS_LIST_TOKEN_LIFETIME_SECONDS must be at least STATUS_LIST_TTL_SECONDS",
  })
  .transform((config) => ({
    ...config,
    AUTH_SERVER_JWKS_URL: config.AUTH_SERVER_JWKS_URL ?? `${config.AUTH_SERVER_URL}/.well-known/jwks.json`,
  }));

export type CredentialIssuerConfig = z.infer<typeof credentialIssuerConfigSchema>;

export const loadCredentialIssuerConfig = (env: Record<string, string | undefined>): CredentialIssuerConfig =>
  loadConfig(credentialIssuerConfigSchema, env);
