import { OAuthError } from "@attesto/runtime";

/** OID4VCI credential endpoint errors (`{error, error_description}`), one factory per code. */
export const invalidCredentialRequest = (description: string, cause?: unknown) =>
  new OAuthError(400, "invalid_credential_request", description, { cause });
export const unknownCredentialConfiguration = (description: string) =>
  new OAuthError(400, "unknown_credential_configuration", description);
export const invalidProof = (description: string, cause?: unknown) =>
  new OAuthError(400, "invalid_proof", description, { cause });
