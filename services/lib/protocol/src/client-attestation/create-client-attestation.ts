import { randomUUID } from "node:crypto";
import { type JWK, SignJWT } from "jose";
import {
  CLIENT_ATTESTATION_POP_TYP,
  CLIENT_ATTESTATION_TYP,
  type ClientAttestationSigningAlg,
} from "./z-client-attestation.js";

function algOf(jwk: JWK): ClientAttestationSigningAlg {
  if (jwk.kty === "EC" && jwk.crv === "P-256") return "ES256";
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "EdDSA";
  throw new Error("client attestation keys must be P-256 or Ed25519");
}

/** The public members of a P-256 or Ed25519 JWK. */
export function attestationPublicJwk(jwk: JWK): JWK {
  return jwk.kty === "EC" ? { kty: "EC", crv: jwk.crv, x: jwk.x, y: jwk.y } : { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export interface CreateClientAttestationJwtOptions {
  /** The wallet provider's private key (P-256 -> ES256, Ed25519 -> EdDSA). */
  providerPrivateJwk: JWK;
  /** How the provider key is named in the header: `kid`, and/or an `x5c` chain. */
  kid?: string;
  x5c?: string[];
  /** The wallet provider identifier (`iss`), optional. */
  issuer?: string;
  /** The wallet instance's client_id (`sub`). */
  clientId: string;
  /** The wallet instance's public key (`cnf.jwk`): it signs the PoPs. */
  instancePublicJwk: JWK;
  ttlSeconds?: number;
  now?: Date;
  /** Extra or overriding header members and claims (tests use them to build faulty attestations). */
  extraHeader?: Record<string, unknown>;
  extraClaims?: Record<string, unknown>;
}

/** A client attestation JWT, as a wallet provider issues it to a wallet instance. */
export function createClientAttestationJwt(options: CreateClientAttestationJwtOptions): Promise<string> {
  const now = options.now ?? new Date();
  return new SignJWT({
    ...(options.issuer === undefined ? {} : { iss: options.issuer }),
    sub: options.clientId,
    iat: seconds(now),
    exp: seconds(now) + (options.ttlSeconds ?? 3600),
    cnf: { jwk: attestationPublicJwk(options.instancePublicJwk) },
    ...options.extraClaims,
  })
    .setProtectedHeader({
      typ: CLIENT_ATTESTATION_TYP,
      alg: algOf(options.providerPrivateJwk),
      ...(options.kid === undefined ? {} : { kid: options.kid }),
      ...(options.x5c === undefined ? {} : { x5c: options.x5c }),
      ...options.extraHeader,
    } as { alg: string })
    .sign(options.providerPrivateJwk);
}

export interface CreateClientAttestationPopJwtOptions {
  /** The wallet instance's private key (the attestation's `cnf.jwk`). */
  instancePrivateJwk: JWK;
  /** The client_id (`iss`, equal to the attestation's `sub`). */
  clientId: string;
  /** The authorization server's issuer identifier (`aud`). */
  audience: string;
  jti?: string;
  ttlSeconds?: number;
  now?: Date;
  extraHeader?: Record<string, unknown>;
  extraClaims?: Record<string, unknown>;
}

/** A client attestation PoP JWT, as the wallet instance signs it for one request. */
export function createClientAttestationPopJwt(options: CreateClientAttestationPopJwtOptions): Promise<string> {
  const now = options.now ?? new Date();
  return new SignJWT({
    iss: options.clientId,
    aud: options.audience,
    jti: options.jti ?? randomUUID(),
    iat: seconds(now),
    exp: seconds(now) + (options.ttlSeconds ?? 60),
    ...options.extraClaims,
  })
    .setProtectedHeader({
      typ: CLIENT_ATTESTATION_POP_TYP,
      alg: algOf(options.instancePrivateJwk),
      ...options.extraHeader,
    } as { alg: string })
    .sign(options.instancePrivateJwk);
}
