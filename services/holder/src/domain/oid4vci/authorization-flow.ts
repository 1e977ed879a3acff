import type { JWK } from "jose";
import type { FlowAttestation } from "../model.js";
import type { AuthorizationServerMetadata, IssuanceTarget } from "./z-credential-offer.js";

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
