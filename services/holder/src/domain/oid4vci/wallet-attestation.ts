import {
  attestationPublicJwk,
  createClientAttestationJwt,
  createClientAttestationPopJwt,
  generateP256Jwk,
} from "@attesto/protocol";
import type { JWK } from "jose";
import type { FlowAttestation } from "../model.js";
import type { WalletClient } from "../ports.js";

/**
 * The wallet's client identity from configuration: a wallet provider key the holder signs its own
 * attestations with (one per flow, for a fresh instance key: flows stay unlinkable by key), or an
 * attestation issued by another provider with its instance key, or nothing.
 */
export function createWalletClient(options: {
  clientId: string;
  /** `iss` of the attestations the holder signs (its public URL). */
  providerIssuer: string;
  providerKey: JWK | undefined;
  ttlSeconds: number;
  attestation: FlowAttestation | undefined;
}): WalletClient {
  return {
    clientId: options.clientId,
    async attestationForFlow(now) {
      if (options.attestation) return options.attestation;
      if (!options.providerKey) return undefined;
      const instanceKey: JWK = generateP256Jwk();
      const attestation = await createClientAttestationJwt({
        providerPrivateJwk: options.providerKey,
        kid: walletProviderKid,
        issuer: options.providerIssuer,
        clientId: options.clientId,
        instancePublicJwk: attestationPublicJwk(instanceKey),
        ttlSeconds: options.ttlSeconds,
        now,
      });
      return { attestation, instanceKey };
    },
  };
}

/** The `kid` the holder's own attestations name their provider key by (authorization servers may list it under it). */
export const walletProviderKid = "attesto-holder-wallet-provider";

/** The two attest_jwt_client_auth headers of one request to the authorization server `audience` (a fresh PoP each time). */
export async function clientAttestationHeaders(
  flow: FlowAttestation,
  input: { clientId: string; audience: string; now: Date },
): Promise<Record<string, string>> {
  const pop = await createClientAttestationPopJwt({
    instancePrivateJwk: flow.instanceKey,
    clientId: input.clientId,
    audience: input.audience,
    now: input.now,
  });
  return { "OAuth-Client-Attestation": flow.attestation, "OAuth-Client-Attestation-PoP": pop };
}
