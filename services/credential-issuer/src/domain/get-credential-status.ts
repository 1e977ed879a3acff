import { badRequest } from "@attesto/runtime/errors";
import type { IssuerDependencies } from "./dependencies.js";

export type CredentialStatusAnswer = "active" | "suspended" | "revoked" | "unknown";

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** CredentialStatusService.GetCredentialStatus: the state of the credential whose issuer JWT has this SHA-256. */
export async function getCredentialStatus(
  deps: IssuerDependencies,
  issuerJwtSha256: string,
): Promise<CredentialStatusAnswer> {
  if (!SHA256_HEX.test(issuerJwtSha256)) throw badRequest("issuer_jwt_sha256 must be 64 lowercase hex characters");
  const record = await deps.credentials.findByIssuerJwtSha256(issuerJwtSha256);
  return record?.status ?? "unknown";
}
