import type { CredentialStatus } from "../domain/credential-record.js";
import type { IssuerPrivateKeysTable } from "./issuer-private-key.store.js";
import type { IssuerSigningKeysTable } from "./issuer-signing-key.store.js";

/** Row of `offers` (see migration 0001 for the invariants between columns). */
export interface OffersTable {
  id: string;
  tenant: string;
  credential_configuration_id: string;
  vct: string;
  claims: Record<string, unknown>;
  signing_mode: "did" | "x509";
  issuer_did: string | null;
  issuer_kid: string | null;
  issuer_key_alg: "EdDSA" | "ES256" | null;
  /** Offers before migration 0010: the private JWK sealed with the offer. */
  issuer_key_sealed: string | null;
  /** Since migration 0010: the tenant's key in `issuer_private_keys` (`<tenant>:<thumbprint>`). */
  issuer_key_thumbprint: string | null;
  flow: "pre-authorized" | "authorization-code";
  pre_authorized_code_hash: string | null;
  pre_authorized_code_sealed: string | null;
  tx_code_hash: string | null;
  issuer_state: string | null;
  holder_did: string | null;
  status: "offered" | "redeemed";
  expires_at: Date;
  created_at: Date;
  redeemed_at: Date | null;
  /** Idempotency key of the GrantService redemption that consumed the pre-authorized code. */
  redemption_id: string | null;
}

export interface CredentialsTable {
  id: string;
  tenant: string;
  offer_id: string;
  credential_configuration_id: string;
  vct: string;
  issuer_jwt_sha256: string;
  holder_key_thumbprint: string;
  holder_did: string | null;
  status: CredentialStatus;
  issued_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  ledger_chain: string | null;
  ledger_object_id: string | null;
  notarization_salt: string | null;
  /** The credential's status list entry (migration 0006); null for credentials issued before. */
  status_list_id: string | null;
  status_idx: number | null;
  status_changed_at: Date | null;
  /** OID4VCI notification (migration 0006). */
  notification_id: string | null;
  notification_event: string | null;
  notification_event_description: string | null;
  notified_at: Date | null;
}

/** Row of `credential_status_changes`: one status change of a credential, who made it and when. */
export interface CredentialStatusChangesTable {
  id: string;
  credential_id: string;
  tenant: string;
  from_status: CredentialStatus;
  to_status: CredentialStatus;
  actor: string;
  changed_at: Date;
}

/** Row of `issuance_allowances`: credentials drawn so far for one offer and configuration. */
export interface IssuanceAllowancesTable {
  offer_id: string;
  credential_configuration_id: string;
  issued: number;
  updated_at: Date;
}

export interface IssuerTables {
  offers: OffersTable;
  credentials: CredentialsTable;
  issuer_signing_keys: IssuerSigningKeysTable;
  issuer_private_keys: IssuerPrivateKeysTable;
  issuance_allowances: IssuanceAllowancesTable;
  status_lists: StatusListsTable;
  status_list_entries: StatusListEntriesTable;
  credential_status_changes: CredentialStatusChangesTable;
}

/** Row of `status_lists` (migrations 0006, 0009). */
export interface StatusListsTable {
  id: string;
  tenant: string;
  signer: string;
  signing_offer_id: string | null;
  size: number;
  bits: number;
  statuses: Buffer;
  /** bigint: pg returns it as a string. */
  version: string | number;
  created_at: Date;
  updated_at: Date;
  /** When the list was found full; open lists have none. */
  closed_at: Date | null;
}

/** Row of `status_list_entries` (migration 0009): one index handed out. */
export interface StatusListEntriesTable {
  list_id: string;
  idx: number;
}
