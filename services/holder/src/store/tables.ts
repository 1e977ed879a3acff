import type { ColumnType, Generated } from "kysely";

/** A holder account. Set at registration, never changed. */
export interface UsersTable {
  uuid: string;
  name: string | null;
  /** argon2id PHC string. */
  password_hash: string;
  created_at: Generated<Date>;
}

/** A DID a holder created (POST /v1/did) or imported (POST /v1/did/import). No private key is kept. */
export interface HolderDidsTable {
  user_uuid: string;
  did: string;
  /** `LEDGER`. */
  method: string;
  /** DID URL of the holder's verification method: the `kid` of proofs signed for this DID. */
  key_id: string;
  /** Public key of `key_id` (kty, crv, x): what a `private_key` sent later must match. */
  public_jwk: ColumnType<{ kty: string; crv: string; x: string }, string, string>;
  source: "created" | "imported";
  status: "active";
  created_at: Generated<Date>;
}

/** A credential received through OID4VCI. Contents are sealed; listing fields are in clear. */
export interface CredentialsTable {
  id: string;
  user_uuid: string;
  /** `dc+sd-jwt`. */
  format: string;
  vct: string;
  /** The DID of the issuer's signing key, or the credential's `iss` when it was signed with x5c. */
  issuer_did: string;
  /** The OID4VCI credential issuer identifier the credential came from. */
  credential_issuer: string;
  credential_configuration_id: string;
  /** The issuer's credential id and offer id from the credential response (null when it named none). */
  issuer_credential_id: string | null;
  issuer_offer_id: string | null;
  holder_did: string;
  issued_at: Date | null;
  expires_at: Date | null;
  status: "active";
  /** `reference` of the credential response (is_on_chain): chain and object id. */
  reference_chain: string | null;
  reference_object_id: string | null;
  /** The issuer's salt of the notarized digest (`reference.issuer_salt`), when it said. */
  reference_issuer_salt: string | null;
  /** JSON of the batch anchor (AnchorProof) once anchored. */
  reference_anchor: string | null;
  /** Envelope (AAD `credential:<id>`) of JSON `{raw, claims, notification?}` (notification: model.ts). */
  sealed_content: string;
  created_at: Generated<Date>;
  /** Soft delete: set by DELETE /v1/vc/:id; the row and its sealed content stay. */
  deleted_at: Date | null;
}

/** Login throttling of one (account, client network) pair; see domain/accounts/login-throttle.ts. */
export interface LoginAttemptsTable {
  account_uuid: string;
  client: string;
  failures: number;
  last_attempt_at: Date;
  blocked_until: Date;
}

/** An authorization code flow in progress or ended; see migrations/0004-authorization-flows.ts. */
export interface AuthorizationFlowsTable {
  id: string;
  user_uuid: string;
  /** SHA-256 (hex) of the flow's `state`. */
  state_hash: string;
  status: "pending" | "redeeming" | "completed" | "failed";
  credential_issuer: string;
  credential_configuration_id: string;
  credential_id: string | null;
  error: string | null;
  error_description: string | null;
  /** Envelope (AAD `authorization-flow:<id>`) of the flow's secrets; null once it ended. */
  sealed_content: string | null;
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
}

export interface HolderTables {
  users: UsersTable;
  holder_dids: HolderDidsTable;
  credentials: CredentialsTable;
  login_attempts: LoginAttemptsTable;
  authorization_flows: AuthorizationFlowsTable;
}
