import { type P256PrivateJwk, p256PrivateJwkFromText } from "@attesto/protocol";
import { baseConfigShape, booleanFlag, loadConfig } from "@attesto/runtime/config";
import { keyEncryptionKeysSchema } from "@attesto/runtime/crypto";
import { outboundConfigShape } from "@attesto/runtime/http";
import { z } from "zod";

/** A P-256 private key setting: JWK JSON or PKCS#8/SEC1 PEM; messages never echo the key. */
const p256PrivateKey = (name: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx): P256PrivateJwk | undefined => {
      if (value === undefined || value.trim() === "") return undefined;
      try {
        return p256PrivateJwkFromText(value);
      } catch (error) {
        ctx.addIssue({
          code: "custom",
          message: `${name} must be a P-256 private key as JWK JSON or PKCS#8 PEM: ${(error as Error).message}`,
        });
        return z.NEVER;
      }
    });

export const holderPorts = { public: 8084, internal: 9084 };

/** Every variable is documented in README.md. */
export const holderConfigSchema = z
  .object({
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
    /** NotaryService.GetAnchorProof: the anchor of notarized credentials from this platform's issuer. */
    SCHEDULER_INTERNAL_URL: z.url().default("http://localhost:9087"),
    /** KeyCustodyService.GetTrustAnchors: the platform's root CA, which verifiers' x509 request objects may chain to. */
    TRUST_REGISTRY_INTERNAL_URL: z.url().default("http://localhost:9085"),
    /** Whether the platform's root CA is a trust anchor for verifiers' certificates (default true). */
    VERIFIER_TRUST_ANCHORS_FROM_PLATFORM: booleanFlag.default(true),
    /**
     * More roots (PEM bundle) verifiers' certificates may chain to (x509_hash / x509_san_dns
     * requests): other verifiers' CAs the wallet trusts.
     */
    VERIFIER_TRUST_ANCHORS_PEM: z
      .string()
      .optional()
      .refine((pem) => pem === undefined || pem.includes("-----BEGIN CERTIFICATE-----"), {
        message: "VERIFIER_TRUST_ANCHORS_PEM must hold PEM certificates",
      }),
    /** How long the platform's root CA is reused before it is asked again. */
    VERIFIER_TRUST_ANCHORS_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
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
    /**
     * The wallet's OAuth client_id at authorization servers (authorization code flow); the holder's
     * PUBLIC_URL when unset.
     */
    WALLET_CLIENT_ID: z.string().min(1).max(255).optional(),
    /**
     * The holder as its own wallet provider: it signs a client attestation (attest_jwt_client_auth)
     * for a fresh instance key per authorization flow with this key. Authorization servers must
     * trust its public key.
     */
    WALLET_PROVIDER_KEY: p256PrivateKey("WALLET_PROVIDER_KEY"),
    /** Lifetime of the attestations the holder signs with WALLET_PROVIDER_KEY. */
    WALLET_ATTESTATION_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
    /**
     * An attestation issued by another wallet provider (a compact JWT, `sub` = WALLET_CLIENT_ID),
     * used instead of signing one; WALLET_INSTANCE_KEY is the private key of its `cnf.jwk`.
     */
    WALLET_ATTESTATION: z
      .string()
      .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, "WALLET_ATTESTATION must be a compact JWT")
      .optional(),
    WALLET_INSTANCE_KEY: p256PrivateKey("WALLET_INSTANCE_KEY"),
    /** How long an authorization code flow may take, from its start to the browser's return. */
    AUTHORIZATION_FLOW_TTL_SECONDS: z.coerce.number().int().min(60).max(3600).default(600),
  })
  .superRefine((config, ctx) => {
    if ((config.WALLET_ATTESTATION === undefined) !== (config.WALLET_INSTANCE_KEY === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["WALLET_ATTESTATION"],
        message: "WALLET_ATTESTATION and WALLET_INSTANCE_KEY go together: set both or neither",
      });
    }
  });

export type HolderConfig = z.infer<typeof holderConfigSchema>;

export const loadHolderConfig = (env: Record<string, string | undefined>): HolderConfig =>
  loadConfig(holderConfigSchema, env);
