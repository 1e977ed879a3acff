/**
 * A credential request proof that cannot be accepted (OID4VCI `invalid_proof`). The message says
 * precisely why and is safe to show: it never contains the proof, a key or a nonce.
 */
export class CredentialProofError extends Error {
  override name = "CredentialProofError";
  readonly code = "invalid_proof";
}
