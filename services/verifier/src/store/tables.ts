import type { VerifierCertificateSource } from "../domain/policy/verifier-policy.js";
import type {
  CheckResult,
  ClientMetadataInput,
  PresentationMetadata,
  ResponseMode,
  StoredSessionStatus,
  VerificationMode,
} from "../domain/verification-session.js";
import type { ClientIdPrefix } from "../domain/x509/client-id-prefix.js";

/** Row of `verification_sessions`; json/jsonb columns are written as JSON text and read back parsed. */
export interface VerificationSessionsTable {
  id: string;
  tenant: string;
  request_uri_id: string;
  state: string;
  nonce: string;
  client_id: string;
  request_kid: string | null;
  response_mode: ResponseMode;
  dcql_query: unknown;
  client_metadata: ClientMetadataInput | null;
  redirect_uri: string | null;
  encryption_kid: string | null;
  encryption_public_jwk: unknown;
  signing_key_envelope: string | null;
  encryption_key_envelope: string | null;
  /** Migration 0005 (x509 client ids, same-device response_code). */
  client_id_prefix: ClientIdPrefix | null;
  signing_key_id: string | null;
  request_x5c: string[] | null;
  response_code_hash: string | null;
  status: StoredSessionStatus;
  verification_mode: VerificationMode | null;
  check_results: CheckResult[] | null;
  presentation_metadata: PresentationMetadata | null;
  created_at: Date;
  expires_at: Date;
  submitted_at: Date | null;
  verified_at: Date | null;
}

/** Row of `verifier_policies` (jsonb columns read back parsed). */
export interface VerifierPoliciesTable {
  tenant: string;
  name: string;
  trusted_issuer_dids: string[];
  /** base64 DER certificates. */
  trusted_x509_roots: string[];
  accepted_vcts: string[];
  required_claims: string[][];
  verification_mode: VerificationMode | null;
  session_ttl_seconds: number | null;
  /** Migration 0003. */
  accept_any_issuer: boolean;
  accept_unknown_status: boolean;
  /** Migration 0005: "platform" | "imported", NULL when the policy does not say. */
  verifier_certificate: VerifierCertificateSource | null;
  digest: string;
  updated_at: Date;
}

export interface VerifierTables {
  verification_sessions: VerificationSessionsTable;
  verifier_policies: VerifierPoliciesTable;
}
