import type { IssuerSigningKey } from "./issuer-signing-keys.js";
import type { Offer } from "./offer.js";
import type { StatusEntry } from "./status-lists.js";

export interface OfferRepository {
  /**
   * Stores a new offer; `signingKey`: the DID-path key it was verified with, stored in the same
   * statement (its sealed private key once per tenant and key, its public key by
   * IssuerSigningKeyRepository.record's rules), so an offer never exists without it. Left out when
   * this process stored that key lately (IssuerKeyring.isRecorded): the offer's insert alone.
   */
  insert(
    offer: Offer,
    signingKey?: { key: IssuerSigningKey; at: Date; privateKey: { id: string; sealed: string } },
  ): Promise<void>;
  findById(id: string): Promise<Offer | undefined>;
  findByCodeHash(codeHash: string): Promise<Offer | undefined>;
  findByIssuerState(issuerState: string): Promise<Offer | undefined>;
  /**
   * Atomically moves the live, unredeemed offer with this code hash (and transaction code hash,
   * when it requires one) to `redeemed`, recording the redemption's idempotency key. Of concurrent
   * calls exactly one gets the offer.
   */
  redeemPreAuthorizedCode(
    codeHash: string,
    txCodeHash: string | undefined,
    redemptionId: string | undefined,
    now: Date,
  ): Promise<Offer | undefined>;
  /** The same for the issuer_state of an authorization-code offer. */
  redeemIssuerState(issuerState: string, now: Date): Promise<Offer | undefined>;
  /** The newest DID-path offer of each (tenant, issuer kid) whose key is not in the tenant's signing keys. */
  findDidOffersWithUnrecordedKey(): Promise<Offer[]>;
}

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

export interface CredentialListQuery {
  tenant: string;
  offerId?: string;
  status?: CredentialStatus;
  offset: number;
  limit: number;
}

export type StatusChangeOutcome =
  | { outcome: "not_found" }
  /** Revoked is final: no change. */
  | { outcome: "final"; record: CredentialRecord }
  /** Already in that status; `change` is the latest change (if any) that brought it there. */
  | { outcome: "unchanged"; record: CredentialRecord; change?: CredentialStatusChange }
  | { outcome: "changed"; record: CredentialRecord; change: CredentialStatusChange };

/** The events of the OID4VCI notification endpoint (OID4VCI 1.0 §11.1). */
export type NotificationEvent = "credential_accepted" | "credential_failure" | "credential_deleted";

export interface CredentialRepository {
  insertMany(records: CredentialRecord[]): Promise<void>;
  findByIssuerJwtSha256(digest: string): Promise<CredentialRecord | undefined>;
  /** One of the tenant's credentials; another tenant's is undefined. */
  find(tenant: string, id: string): Promise<CredentialRecord | undefined>;
  /** The tenant's credentials, newest first, and how many match in all. */
  list(query: CredentialListQuery): Promise<{ records: CredentialRecord[]; total: number }>;
  /**
   * In one transaction under the credential's row lock: its status, its status list entry (one
   * byte rewritten in one statement, the list's version raised) and the history row.
   */
  changeStatus(input: {
    tenant: string;
    id: string;
    to: CredentialStatus;
    actor: string;
    at: Date;
  }): Promise<StatusChangeOutcome>;
  /** The credential's status changes, oldest first. */
  statusHistory(tenant: string, id: string): Promise<CredentialStatusChange[]>;
  /**
   * Stores a wallet's notification (OID4VCI 1.0 §11) on the credentials issued with
   * `notificationId` to `offerId` in `tenant`; returns them (none: unknown id or another offer's).
   */
  recordNotification(input: {
    tenant: string;
    offerId: string;
    notificationId: string;
    event: NotificationEvent;
    description?: string;
    at: Date;
  }): Promise<CredentialRecord[]>;
  /** Marks a credential revoked (operator action; no public endpoint exists). */
  revoke(id: string, at: Date): Promise<boolean>;
}

/** Which draw on an issuance allowance: one offer (so one access token) and one credential configuration. */
export interface IssuanceAllowanceKey {
  offerId: string;
  credentialConfigurationId: string;
}

/**
 * How many credentials each access token has drawn per credential configuration, shared by every
 * replica: the `batch_size` bound over the token's lifetime.
 */
export interface IssuanceAllowanceRepository {
  /**
   * Atomically adds `count` to the key's credentials when the total stays within `limit`; false (and
   * nothing changed) otherwise. Of concurrent calls, only as many succeed as the limit allows.
   */
  reserve(key: IssuanceAllowanceKey, count: number, limit: number, now: Date): Promise<boolean>;
  /** Gives back a reservation whose credentials were not issued after all. */
  release(key: IssuanceAllowanceKey, count: number, now: Date): Promise<void>;
}

/** The writes of one credential request (IssuanceReservationRepository). */
export interface IssuanceReservationInput {
  /** The request's c_nonces (a batch's proofs may share one): each is spent once. */
  nonces: Array<{ value: string; expiresAt: Date }>;
  /** Then, only if every nonce was fresh: the token's allowance (batch_size). */
  allowance: { key: IssuanceAllowanceKey; count: number; limit: number };
  /**
   * Then, only if the allowance was reserved: the signed credentials' records, their status list
   * entries already claimed (status-entry-pool.ts). Left out when the credentials are recorded
   * later (notarized credentials: the ledger's reference is known only after the reservation).
   */
  records?: CredentialRecord[];
  now: Date;
}

export type IssuanceReservation =
  | { outcome: "nonce_used" }
  | { outcome: "allowance_exceeded" }
  | { outcome: "reserved" };

/**
 * The writes of a credential request in one database statement: single-use c_nonces, the issuance
 * allowance and the credentials' records, each only if the one before held. Each part keeps its
 * own guarantee under concurrency (on any replica), as when made alone.
 */
export interface IssuanceReservationRepository {
  reserve(input: IssuanceReservationInput): Promise<IssuanceReservation>;
}
