import type { JWK } from "jose";
import type { IssuanceTarget } from "./store-issued-credential.js";
import type { FlowAttestation } from "./wallet-attestation.js";
import type { AuthorizationServerMetadata } from "./z-credential-offer.js";

/** What the callback needs to finish a flow. Secrets: kept sealed, erased when the flow ends. */
export interface AuthorizationFlowSecrets {
  holderDid: string;
  privateKey: string;
  notarizeOnLedger: boolean;
  clientId: string;
  redirectUri: string;
  codeVerifier: string;
  dpopKey: JWK;
  /** The DPoP-Nonce of the PAR response, for the token request. */
  dpopNonce?: string;
  attestation?: FlowAttestation;
  target: IssuanceTarget;
  authorizationServer: AuthorizationServerMetadata;
}

export type AuthorizationFlowStatus = "pending" | "redeeming" | "completed" | "failed";

/** An authorization code flow as it is listed (no secrets). */
export interface AuthorizationFlow {
  id: string;
  userUuid: string;
  status: AuthorizationFlowStatus;
  credentialIssuer: string;
  credentialConfigurationId: string;
  credentialId: string | null;
  error: string | null;
  errorDescription: string | null;
  createdAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
}

export type FlowOutcome =
  | { status: "completed"; credentialId: string }
  | { status: "failed"; error: string; errorDescription: string };

export interface AuthorizationFlowRepository {
  insert(flow: AuthorizationFlow & { stateHash: string; secrets: AuthorizationFlowSecrets }): Promise<void>;
  /** Flows of the user still pending and unexpired at `now`. */
  countPending(userUuid: string, now: Date): Promise<number>;
  /**
   * Atomically takes the pending, unexpired flow of this state (pending -> redeeming), with its
   * secrets: only one callback can ever finish a flow. Undefined when there is none.
   */
  claim(stateHash: string, now: Date): Promise<(AuthorizationFlow & { secrets: AuthorizationFlowSecrets }) | undefined>;
  findByStateHash(stateHash: string): Promise<AuthorizationFlow | undefined>;
  find(userUuid: string, id: string): Promise<AuthorizationFlow | undefined>;
  /** Records the outcome and erases the secrets. */
  end(id: string, outcome: FlowOutcome, at: Date): Promise<void>;
  /** Deletes flows that expired before `before`. */
  purge(before: Date): Promise<void>;
}
