import {
  CLIENT_ATTESTATION_HEADER,
  CLIENT_ATTESTATION_POP_HEADER,
  ClientAttestationError,
  type ClientAttestationReplayStore,
  type ClientAttestationTrust,
  type VerifiedClientAttestation,
  verifyClientAttestation,
} from "@attesto/protocol";
import { InvalidClient } from "@attesto/runtime/errors";

/** The two attest_jwt_client_auth request headers, as received. */
export interface ClientAttestationHeaders {
  attestation: string | string[] | undefined;
  pop: string | string[] | undefined;
}

export interface ClientAuthenticationDeps {
  trust: ClientAttestationTrust;
  /** The authorization server's issuer identifier: the PoP audience. */
  issuer: string;
  replay: ClientAttestationReplayStore;
  now: () => Date;
  /** Observes refused attestations (metrics). */
  onFailure?: (error: ClientAttestationError) => void;
}

const isSent = (value: string | string[] | undefined) =>
  value !== undefined && (Array.isArray(value) ? value.length > 0 : value.trim() !== "");

/** Whether the request tries attestation-based client authentication at all (either header). */
export const sendsClientAttestation = (headers: ClientAttestationHeaders): boolean =>
  isSent(headers.attestation) || isSent(headers.pop);

/** 401 for a request that must authenticate with a client attestation and sent none. */
export const clientAttestationRequired = (why?: string) =>
  new InvalidClient(
    `${CLIENT_ATTESTATION_HEADER} and ${CLIENT_ATTESTATION_POP_HEADER} headers are required${why ? `: ${why}` : ""}`,
  );

/**
 * attest_jwt_client_auth: the attestation by a trusted wallet provider and its PoP, for `clientId`
 * (which must be the attestation's `sub`). Every fault is 401 `invalid_client` with its precise
 * description.
 */
export async function authenticateClient(
  headers: ClientAttestationHeaders,
  clientId: string,
  deps: ClientAuthenticationDeps,
): Promise<VerifiedClientAttestation> {
  try {
    return await verifyClientAttestation({
      attestationHeader: headers.attestation,
      popHeader: headers.pop,
      trust: deps.trust,
      authorizationServer: deps.issuer,
      clientId,
      replay: deps.replay,
      now: deps.now(),
    });
  } catch (error) {
    if (!(error instanceof ClientAttestationError)) throw error;
    deps.onFailure?.(error);
    throw new InvalidClient(error.message, { cause: error });
  }
}
