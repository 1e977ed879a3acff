import type { AnchorProof, Ed25519PublicJwk } from "@attesto/protocol";
import type { JWK } from "jose";

/** A holder account (this service's README). */
export interface User {
  uuid: string;
  name: string | null;
  /** argon2id PHC string. */
  passwordHash: string;
  createdAt: Date;
}

/** The only DID method a holder creates or imports (the trust-registry README). */
export const LEDGER_DID_METHOD = "LEDGER";
export const LEDGER_DID_PREFIX = "did:ledger:";

/** A did:ledger DID in a holder's wallet: who holds it and which key it names. Never a private key. */
export interface HolderDid {
  userUuid: string;
  did: string;
  method: typeof LEDGER_DID_METHOD;
  /** DID URL of the verification method the holder's key is (e.g. `did:ledger:...#key-1`). */
  keyId: string;
  publicJwk: Ed25519PublicJwk;
  source: "created" | "imported";
  status: "active";
  createdAt: Date;
}

/** Where a notarized credential is on the ledger (from the credential response's `reference`). */
export interface LedgerReference {
  chain: string;
  objectId: string;
  /** The issuer's salt (`reference.issuer_salt`): digest = SHA-256(issuer salt || SHA-256(issuer JWT)). */
  issuerSalt?: string;
  /** The batch anchor, once the scheduler reported it anchored (kept: it never changes). */
  anchor?: AnchorProof;
}

/** What the listing shows of a stored credential (an issued credential without claims, raw and reference). */
export interface CredentialSummary {
  id: string;
  userUuid: string;
  format: string;
  vct: string;
  issuerDid: string;
  credentialIssuer: string;
  credentialConfigurationId: string;
  /** The issuer's id of this credential (its admin record, `PATCH /v1/credentials/:id` at Attesto), when it said. */
  issuerCredentialId: string | null;
  /** The issuer's id of the offer it came from, when it said. */
  issuerOfferId: string | null;
  holderDid: string;
  issuedAt: Date | null;
  expiresAt: Date | null;
  status: "active";
  createdAt: Date;
}

/** A stored credential with its contents (kept sealed at rest). */
export interface StoredCredential extends CredentialSummary {
  /** The SD-JWT VC as issued: issuer-signed JWT and every disclosure. */
  raw: string;
  /** Every claim, decoded (disclosures applied), without the SD-JWT VC's own claims. */
  claims: Record<string, unknown>;
  reference: LedgerReference | undefined;
  /** How to tell its issuer what became of it (OID4VCI notification endpoint); kept sealed. */
  notification?: IssuerNotificationHandle;
}

/**
 * What the OID4VCI notification endpoint needs: the response's notification_id and the access
 * token of the credential request (with its DPoP key when bound). Secrets: kept sealed at rest.
 */
export interface IssuerNotificationHandle {
  endpoint: string;
  notificationId: string;
  token: string;
  scheme: "DPoP" | "Bearer";
  /** The private DPoP key the token is bound to (scheme DPoP). */
  dpopKey?: Record<string, unknown>;
}

/** A client attestation (attest_jwt_client_auth) and the private key of its `cnf.jwk`, for one flow. */
export interface FlowAttestation {
  attestation: string;
  instanceKey: JWK;
}
