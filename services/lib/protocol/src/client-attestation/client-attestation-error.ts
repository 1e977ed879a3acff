/** Why a client attestation was refused: a stable label for metrics and logs. */
export type ClientAttestationFailureReason =
  | "missing"
  | "multiple"
  | "malformed"
  | "typ"
  | "alg"
  | "untrusted"
  | "signature"
  | "claims"
  | "expired"
  | "not_yet_valid"
  | "cnf"
  | "client_id"
  | "aud"
  | "iss"
  | "iat"
  | "replay";

/**
 * A refused `attest_jwt_client_auth` client authentication. Every one is answered 401
 * `invalid_client`; the message is a precise description that is safe to show (it never embeds the
 * attestation, the PoP or a key).
 */
export class ClientAttestationError extends Error {
  override name = "ClientAttestationError";
  readonly reason: ClientAttestationFailureReason;

  constructor(reason: ClientAttestationFailureReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

export const attestationFailure = (reason: ClientAttestationFailureReason, message: string, cause?: unknown) =>
  new ClientAttestationError(reason, message, cause === undefined ? undefined : { cause });
