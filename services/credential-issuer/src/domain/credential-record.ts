import type { StatusEntry } from "./status-lists.js";

/** A credential's status: `revoked` is final; `suspended` can go back to `active`. */
export const credentialStatuses = ["active", "suspended", "revoked"] as const;
export type CredentialStatus = (typeof credentialStatuses)[number];

/** The issuer's record of a credential it issued: revocation state lives here (this service's README). */
export interface CredentialRecord {
  id: string;
  tenant: string;
  offerId: string;
  credentialConfigurationId: string;
  vct: string;
  /** Lowercase hex SHA-256 of the issuer-signed JWT. */
  issuerJwtSha256: string;
  /** RFC 7638 thumbprint of the holder key in `cnf.jwk`. */
  holderKeyThumbprint: string;
  holderDid?: string;
  status: CredentialStatus;
  issuedAt: Date;
  expiresAt: Date;
  revokedAt?: Date;
  /** When its status last changed. */
  statusChangedAt?: Date;
  /** Set when the credential was notarized: the salted digest's ledger record and its salt. */
  notarization?: { chain: string; objectId: string; salt: string };
  /** Its entry in a status list (its `status` claim); unset for credentials issued before status lists. */
  statusEntry?: StatusEntry;
  /** The notification_id of the credential response that carried it (shared by a batch). */
  notificationId?: string;
  /** The wallet's latest notification about it (OID4VCI 1.0 §11). */
  notification?: { event: NotificationEvent; description?: string; at: Date };
}

/** One recorded status change: who changed the credential's status, from what to what, when. */
export interface CredentialStatusChange {
  id: string;
  credentialId: string;
  tenant: string;
  from: CredentialStatus;
  to: CredentialStatus;
  /** `account:<account uuid>` of the API key that made the change. */
  actor: string;
  changedAt: Date;
}

/** The events of the OID4VCI notification endpoint (OID4VCI 1.0 §11.1). */
export type NotificationEvent = "credential_accepted" | "credential_failure" | "credential_deleted";
