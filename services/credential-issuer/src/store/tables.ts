import type { CredentialStatus } from "../domain/repositories.js";
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
  issuer_key_sealed: string | null;
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
  issuance_allowances: IssuanceAllowancesTable;
}
