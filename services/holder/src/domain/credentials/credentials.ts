import { notFound } from "@attesto/runtime/errors";
import type { HolderDependencies } from "../dependencies.js";
import type { CredentialSummary, StoredCredential } from "../model.js";
import { notifyIssuer } from "../oid4vci/notify-issuer.js";
import type { WarningLog } from "../ports.js";

export const CREDENTIAL_NOT_FOUND_MESSAGE = "Credential not found";

/** GET /v1/vc: the holder's credentials that are not deleted. */
export const listCredentials = (deps: Pick<HolderDependencies, "credentials">, userUuid: string) =>
  deps.credentials.list(userUuid) as Promise<CredentialSummary[]>;

/** GET /v1/vc/:id: one of the holder's credentials; another holder's (or a deleted one) is 404. */
export async function getCredential(
  deps: Pick<HolderDependencies, "credentials">,
  userUuid: string,
  id: string,
): Promise<StoredCredential> {
  const credential = await deps.credentials.find(userUuid, id);
  if (!credential) throw notFound(CREDENTIAL_NOT_FOUND_MESSAGE);
  return credential;
}

/**
 * DELETE /v1/vc/:id: soft delete (gone from listings and detail; the sealed raw SD-JWT stays), then
 * `credential_deleted` to its issuer when it came with a notification handle (best effort).
 */
export async function deleteCredential(
  deps: Pick<HolderDependencies, "credentials" | "now" | "http">,
  userUuid: string,
  id: string,
  log: WarningLog,
): Promise<void> {
  const credential = await deps.credentials.find(userUuid, id);
  if (!credential || !(await deps.credentials.softDelete(userUuid, id, deps.now()))) {
    throw notFound(CREDENTIAL_NOT_FOUND_MESSAGE);
  }
  await notifyIssuer(deps, log, credential.notification, "credential_deleted");
}
