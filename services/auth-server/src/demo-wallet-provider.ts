import {
  attestationPublicJwk,
  createClientAttestationJwt,
  createClientAttestationPopJwt,
  type P256PrivateJwk,
  type P256PublicJwk,
} from "@attesto/protocol";
import type { JWK } from "jose";

/*
 * DEMO ONLY. The platform's demo wallet provider: a key pair whose PRIVATE KEY IS PUBLIC (it is in
 * this file, in the repository). Anyone can sign client attestations with it, so trusting it means
 * trusting every client. The auth server trusts it only when CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER=true:
 * the all-in-one (`npm start`) sets that while every listener is bound to loopback, so the demo wallet
 * works without setup; real deployments configure their wallet providers in
 * CLIENT_ATTESTATION_TRUSTED_KEYS / CLIENT_ATTESTATION_TRUSTED_X5C_ROOTS_PEM.
 */

/** `kid` of the demo wallet provider's key (the attestation header names it). */
export const DEMO_WALLET_PROVIDER_KID = "attesto-demo-wallet-provider";
/** The demo wallet provider's identifier (`iss` of its attestations). */
export const DEMO_WALLET_PROVIDER_ISSUER = "urn:attesto:demo-wallet-provider";

/** DEMO ONLY: the private key is published. Never trust it in production. */
export const DEMO_WALLET_PROVIDER_PRIVATE_JWK: P256PrivateJwk = {
  kty: "EC",
  crv: "P-256",
  x: "SVaid3Zph1gqQ7Owf6Ga_NniIHHX0GC1tPAbNDqdK-o",
  y: "fKeUDJWUq7JzgivFf94GUGZNl8fT4_g-jK-qu5_T72c",
  d: "yreWVe0CQHNqnj_ZLhUt3-j56RHMwWc2zkmw8V4qWu0",
};

/** The public key the auth server trusts when CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER=true. */
export const DEMO_WALLET_PROVIDER_PUBLIC_JWK: P256PublicJwk & { kid: string } = {
  kty: "EC",
  crv: "P-256",
  x: DEMO_WALLET_PROVIDER_PRIVATE_JWK.x,
  y: DEMO_WALLET_PROVIDER_PRIVATE_JWK.y,
  kid: DEMO_WALLET_PROVIDER_KID,
};

/**
 * DEMO ONLY: a client attestation from the demo wallet provider for a wallet instance key, as the
 * platform's demo wallet and the tests obtain one.
 */
export function createDemoClientAttestation(options: {
  clientId: string;
  instancePublicJwk: JWK;
  ttlSeconds?: number;
  now?: Date;
}): Promise<string> {
  return createClientAttestationJwt({
    providerPrivateJwk: DEMO_WALLET_PROVIDER_PRIVATE_JWK as JWK,
    kid: DEMO_WALLET_PROVIDER_KID,
    issuer: DEMO_WALLET_PROVIDER_ISSUER,
    clientId: options.clientId,
    instancePublicJwk: attestationPublicJwk(options.instancePublicJwk),
    ...(options.ttlSeconds === undefined ? {} : { ttlSeconds: options.ttlSeconds }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}

/**
 * The two headers of `attest_jwt_client_auth` for one request to the authorization server `audience`,
 * with a demo attestation (or the one given).
 */
export async function createDemoClientAttestationHeaders(options: {
  clientId: string;
  instancePrivateJwk: JWK;
  audience: string;
  attestation?: string;
  now?: Date;
}): Promise<{ "OAuth-Client-Attestation": string; "OAuth-Client-Attestation-PoP": string }> {
  const attestation =
    options.attestation ??
    (await createDemoClientAttestation({
      clientId: options.clientId,
      instancePublicJwk: options.instancePrivateJwk,
      ...(options.now === undefined ? {} : { now: options.now }),
    }));
  const pop = await createClientAttestationPopJwt({
    instancePrivateJwk: options.instancePrivateJwk,
    clientId: options.clientId,
    audience: options.audience,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  return { "OAuth-Client-Attestation": attestation, "OAuth-Client-Attestation-PoP": pop };
}
