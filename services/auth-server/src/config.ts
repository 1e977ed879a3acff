import {
  type Certificate,
  createClientAttestationTrust,
  type P256PrivateJwk,
  p256PrivateJwkFromText,
  parsePemCertificates,
} from "@attesto/protocol";
import { baseConfigShape, booleanFlag, loadConfig } from "@attesto/runtime/config";
import type { JWK } from "jose";
import { z } from "zod";

export const authServerPorts = { public: 8081, internal: 9081 };

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, "");

/** PEM given on one line with literal `\n` escapes (env files, secret managers) -> real newlines. */
const unescapePem = (text: string) => (text.includes("\n") ? text : text.replace(/\\n/g, "\n"));

/** A P-256 private key as a JWK (JSON) or PKCS#8/SEC1 PEM (one-line PEM with literal `\n` escapes too). */
const p256SigningKey = z
  .string({ error: "ACCESS_TOKEN_SIGNING_KEY is required (a P-256 private JWK as JSON, or PKCS#8 PEM)" })
  .transform((value, ctx): P256PrivateJwk => {
    try {
      return p256PrivateJwkFromText(value);
    } catch (error) {
      // Never echo the value: it is a private key.
      ctx.addIssue({
        code: "custom",
        message: `must be a P-256 private key as JWK JSON or PKCS#8 PEM: ${(error as Error).message}`,
      });
      return z.NEVER;
    }
  });

/**
 * Wallet provider public keys: a JWKS (`{"keys": [...]}`), an array of JWKs, or one JWK; EC P-256 or
 * OKP Ed25519, public members only (checked as the trust is built; messages never echo a key).
 */
const trustedKeys = z.string().transform((value, ctx): JWK[] => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    ctx.addIssue({ code: "custom", message: "must be a JWKS as JSON: not valid JSON" });
    return z.NEVER;
  }
  const keys = Array.isArray(parsed)
    ? parsed
    : typeof parsed === "object" && parsed !== null && Array.isArray((parsed as { keys?: unknown }).keys)
      ? (parsed as { keys: unknown[] }).keys
      : [parsed];
  if (keys.some((key) => typeof key !== "object" || key === null || Array.isArray(key))) {
    ctx.addIssue({ code: "custom", message: "must be a JWKS as JSON: every key must be a JWK object" });
    return z.NEVER;
  }
  try {
    createClientAttestationTrust({ keys: keys as JWK[] });
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
  return keys as JWK[];
});

/** X.509 roots of wallet providers (attestations carrying an `x5c` chain), as a PEM bundle. */
const trustedRoots = z.string().transform((value, ctx): Certificate[] => {
  try {
    return parsePemCertificates(unescapePem(value.trim()));
  } catch (error) {
    ctx.addIssue({ code: "custom", message: `must be PEM certificates: ${(error as Error).message}` });
    return z.NEVER;
  }
});

/** Comma-separated absolute URLs, compared exactly. */
const urlList = z.string().transform((value, ctx): string[] => {
  const urls = value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  for (const url of urls) {
    if (!URL.canParse(url)) ctx.addIssue({ code: "custom", message: `${url} is not an absolute URL` });
  }
  return urls;
});

export const authServerConfigSchema = z.object({
  ...baseConfigShape({
    port: authServerPorts.public,
    internalPort: authServerPorts.internal,
    databaseSchema: "auth_server",
  }),
  /** Public URL of the credential issuer; access token audience is `<this>/<tenant>` (the issuer identifier). */
  CREDENTIAL_ISSUER_URL: z.url().default("http://localhost:8082").transform(withoutTrailingSlash),
  /** Internal (Connect) URL of the credential issuer, where GrantService redeems pre-authorized codes. */
  CREDENTIAL_ISSUER_INTERNAL_URL: z.url().default("http://localhost:9082").transform(withoutTrailingSlash),
  /** The key access tokens are signed with (ES256); its public part is served at /.well-known/jwks.json. */
  ACCESS_TOKEN_SIGNING_KEY: p256SigningKey,
  /** Lifetime of access tokens, also the token response's `expires_in` (this service's README: 3600). */
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  /** HMAC key of the stateless DPoP server nonces (at least 32 characters); share it between replicas. */
  DPOP_NONCE_SECRET: z
    .string({ error: "DPOP_NONCE_SECRET is required (at least 32 characters)" })
    .min(32, "DPOP_NONCE_SECRET must be at least 32 characters"),
  /** Whether DPoP proofs at the token and PAR endpoints must carry a server nonce (`use_dpop_nonce` dance). */
  DPOP_NONCE_REQUIRED: booleanFlag.default(true),
  /** PAR requires attest_jwt_client_auth (this service's README): missing headers -> 401 invalid_client. */
  CLIENT_ATTESTATION_REQUIRED_AUTH_CODE: booleanFlag.default(true),
  /**
   * The token endpoint requires the client attestation again when the authorization request (PAR)
   * was authenticated with one; false: verified when sent, not required.
   */
  CLIENT_ATTESTATION_REQUIRED_AT_TOKEN: booleanFlag.default(true),
  /** Wallet provider public keys trusted to sign client attestations (JWKS JSON). */
  CLIENT_ATTESTATION_TRUSTED_KEYS: trustedKeys.optional(),
  /** Wallet provider X.509 roots, for attestations that carry an x5c chain (PEM bundle). */
  CLIENT_ATTESTATION_TRUSTED_X5C_ROOTS_PEM: trustedRoots.optional(),
  /**
   * Trust the platform's demo wallet provider, whose private key is public (development only). Off
   * unless set; the all-in-one sets it while every listener is on loopback.
   */
  CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: booleanFlag.default(false),
  /** Where GET /end_session may send the browser back to (exact match); comma-separated. */
  POST_LOGOUT_REDIRECT_URIS: urlList.default([]),
  /** How long the consent page, once shown, may be approved or denied. */
  AUTHORIZATION_CONSENT_TTL_SECONDS: z.coerce.number().int().min(60).max(3600).default(600),
});

export type AuthServerConfig = z.infer<typeof authServerConfigSchema>;

export const loadAuthServerConfig = (env: Record<string, string | undefined>): AuthServerConfig =>
  loadConfig(authServerConfigSchema, env);
