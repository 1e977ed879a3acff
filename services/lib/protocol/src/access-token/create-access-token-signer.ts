import { createHash, createPrivateKey, createPublicKey, type KeyObject, randomUUID } from "node:crypto";
import { signCompactJws } from "../keys/jws.js";
import { KeyFormatError } from "../keys/key-format-error.js";
import type { P256PrivateJwk } from "../keys/p256.js";
import { type MintedTokens, mintedHere } from "./minted-here.js";
import {
  ACCESS_TOKEN_ALG,
  ACCESS_TOKEN_TYP,
  type AccessTokenGrant,
  type AccessTokenPayload,
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
} from "./z-access-token.js";

export interface CreateAccessTokenSignerOptions {
  /** The authorization server's P-256 signing key. */
  privateJwk: P256PrivateJwk;
  /** The authorization server's issuer identifier (its metadata `issuer`). */
  issuer: string;
  ttlSeconds?: number;
  now?: () => Date;
  /** Where each signed token is remembered, so a verifier in this process need not check its signature again (default: the process's one). */
  minted?: MintedTokens;
}

/** A public signing key as published at the authorization server's `jwks_uri`. */
export interface AccessTokenPublicJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  kid: string;
  alg: "ES256";
  use: "sig";
}

export interface AccessTokenSigner {
  readonly issuer: string;
  readonly ttlSeconds: number;
  /** RFC 7638 thumbprint of the signing key; the `kid` of every token. */
  readonly kid: string;
  /** The key set to publish at `jwks_uri`. */
  readonly jwks: { keys: AccessTokenPublicJwk[] };
  /** An RFC 9068 JWT access token for a redeemed grant. */
  sign(grant: AccessTokenGrant): Promise<string>;
}

/** RFC 7638 thumbprint of a P-256 key: SHA-256 over the required members in lexicographic order. */
function p256Thumbprint(jwk: { x: string; y: string }): string {
  const canonical = JSON.stringify({ crv: "P-256", kty: "EC", x: jwk.x, y: jwk.y });
  return createHash("sha256").update(canonical).digest("base64url");
}

function importSigningKey(jwk: P256PrivateJwk): KeyObject {
  if (jwk?.kty !== "EC" || jwk.crv !== "P-256" || !jwk.d || !jwk.x || !jwk.y) {
    throw new KeyFormatError("access token signing key must be a P-256 private JWK (kty EC, crv P-256, x, y, d)");
  }
  try {
    return createPrivateKey({ key: { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, d: jwk.d }, format: "jwk" });
  } catch {
    throw new KeyFormatError("access token signing key is not a valid P-256 private key");
  }
}

/**
 * Signs the authorization server's access tokens: RFC 9068 JWTs (`typ: at+jwt`, ES256, `kid` =
 * key thumbprint) carrying iss, aud (the credential issuer identifier), sub (the offer id),
 * client_id?, iat, exp, jti, and the grant: tenant, offer_id, credential_configuration_ids,
 * dpop_required, `cnf.jkt` when DPoP-bound, and `revocable: true` when the token can be revoked early.
 */
export function createAccessTokenSigner(options: CreateAccessTokenSignerOptions): AccessTokenSigner {
  const key = importSigningKey(options.privateJwk);
  const publicKey = createPublicKey(key);
  const minted = options.minted ?? mintedHere;
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) throw new Error("ttlSeconds must be a positive integer");
  const now = options.now ?? (() => new Date());
  const kid = p256Thumbprint(options.privateJwk);
  const publicJwk: AccessTokenPublicJwk = {
    kty: "EC",
    crv: "P-256",
    x: options.privateJwk.x,
    y: options.privateJwk.y,
    kid,
    alg: ACCESS_TOKEN_ALG,
    use: "sig",
  };

  return {
    issuer: options.issuer,
    ttlSeconds,
    kid,
    jwks: { keys: [publicJwk] },
    async sign(grant) {
      const iat = Math.floor(now().getTime() / 1000);
      const payload: AccessTokenPayload = {
        iss: options.issuer,
        aud: grant.audience,
        sub: grant.subject,
        ...(grant.clientId === undefined ? {} : { client_id: grant.clientId }),
        iat,
        exp: iat + ttlSeconds,
        jti: randomUUID(),
        tenant: grant.tenant,
        offer_id: grant.offerId,
        credential_configuration_ids: [...grant.credentialConfigurationIds],
        dpop_required: grant.dpopRequired,
        ...(grant.jkt === undefined ? {} : { cnf: { jkt: grant.jkt } }),
        ...(grant.revocable ? { revocable: true } : {}),
      };
      const token = signCompactJws(ACCESS_TOKEN_ALG, { typ: ACCESS_TOKEN_TYP, kid }, { ...payload }, key);
      minted.remember(token, publicKey);
      return token;
    },
  };
}
