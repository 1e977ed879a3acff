import { baseConfigShape, loadConfig } from "@attesto/runtime/config";
import { keyEncryptionKeysSchema } from "@attesto/runtime/crypto";
import { outboundConfigShape } from "@attesto/runtime/http";
import { z } from "zod";

export const holderPorts = { public: 8084, internal: 9084 };

/** Every variable is documented in README.md. */
export const holderConfigSchema = z.object({
  ...baseConfigShape({ port: holderPorts.public, internalPort: holderPorts.internal, databaseSchema: "holder" }),
  /** HS256 secret signing holder login tokens (at least 32 characters). Required. */
  HOLDER_TOKEN_SECRET: z
    .string({ error: "HOLDER_TOKEN_SECRET is required (at least 32 characters)" })
    .min(32, "HOLDER_TOKEN_SECRET must be at least 32 characters"),
  /** Lifetime of a login token, also the login response's `expires_in` (this service's README: 86400). */
  HOLDER_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(2_592_000).default(86_400),
  /** Key-encryption keys sealing stored credentials (raw SD-JWT and claims) at rest. Required. */
  KEY_ENCRYPTION_KEYS: keyEncryptionKeysSchema,
  /** LedgerService: did:ledger creation and resolution, reachability before notarized issuance. */
  LEDGER_INTERNAL_URL: z.url().default("http://localhost:9088"),
  /**
   * The outbound request guard (OUTBOUND_ALLOW_HOSTS, OUTBOUND_ALLOW_HTTP, OUTBOUND_TIMEOUT_MS,
   * OUTBOUND_MAX_RESPONSE_BYTES) for every URL a user or third party hands the holder.
   */
  ...outboundConfigShape(),
  /**
   * Longest a credential's Status List Token is reused: its `ttl` shortens it, its `exp` ends it.
   * 0 fetches it every time.
   */
  STATUS_LIST_MAX_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  /** Deadline of one Status List Token fetch (shorter than OUTBOUND_TIMEOUT_MS: listing waits for it). */
  STATUS_LIST_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  /** Tolerance on credential and request-object time claims. */
  CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(600).default(60),
});

export type HolderConfig = z.infer<typeof holderConfigSchema>;

export const loadHolderConfig = (env: Record<string, string | undefined>): HolderConfig =>
  loadConfig(holderConfigSchema, env);
