import { notFound } from "@attesto/runtime/errors";
import type { CredentialSummary, StoredCredential } from "../model.js";
import { notifyIssuer } from "../oid4vci/notify-issuer.js";
import type { HolderDependencies, WarningLog } from "../ports.js";
import { withCurrentAnchors } from "./credential-references.js";
import { type CredentialStatusView, credentialStatusesOf, credentialStatusOf } from "./credential-status.js";

export const CREDENTIAL_NOT_FOUND_MESSAGE = "Credential not found";

type StatusDependencies = Parameters<typeof credentialStatusOf>[0];

/** A held credential and its current status from its issuer's status list. */
export type WithStatus<T> = T & { credentialStatus: CredentialStatusView };

/**
 * GET /v1/vc: the holder's credentials that are not deleted, each with its current status (read
 * from its status list, which is why the sealed contents are opened: the reference is inside).
 */
export async function listCredentials(
  deps: Pick<HolderDependencies, "credentials"> & StatusDependencies,
  userUuid: string,
  log: WarningLog,
): Promise<Array<WithStatus<CredentialSummary>>> {
  const credentials = await deps.credentials.listWithContents(userUuid);
  const statuses = await credentialStatusesOf(deps, credentials, log);
  return credentials.map((credential) => ({ ...credential, credentialStatus: statuses.get(credential.id)! }));
}

/**
 * GET /v1/vc/:id: one of the holder's credentials with its status and, when notarized, its anchor
 * (asked of the scheduler until anchored); another holder's (or a deleted one) is 404.
 */
export async function getCredential(
  deps: Pick<HolderDependencies, "credentials" | "notary"> & StatusDependencies,
  userUuid: string,
  id: string,
  log: WarningLog,
): Promise<WithStatus<StoredCredential>> {
  const found = await deps.credentials.find(userUuid, id);
  if (!found) throw notFound(CREDENTIAL_NOT_FOUND_MESSAGE);
  const [credential] = await withCurrentAnchors(deps, [found], log);
  if (!credential) throw notFound(CREDENTIAL_NOT_FOUND_MESSAGE);
  return { ...credential, credentialStatus: await credentialStatusOf(deps, credential, log) };
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
