import { conflict, notFound } from "@attesto/runtime/errors";
import type { CredentialRecord, CredentialStatus, CredentialStatusChange } from "./credential-record.js";
import type { IssuerDependencies } from "./ports.js";

export interface ChangeCredentialStatusInput {
  tenant: string;
  credentialId: string;
  status: CredentialStatus;
  /** `account:<account uuid>` of the API key. */
  actor: string;
}

/** `credential.status_changed` for a recorded change; its id is the event key, so a repeat creates no second event. */
async function publishChange(
  deps: Pick<IssuerDependencies, "notary">,
  record: CredentialRecord,
  change: CredentialStatusChange,
) {
  await deps.notary.publishCredentialEvent({
    tenant: record.tenant,
    type: "credential.status_changed",
    credentialId: record.id,
    offerId: record.offerId,
    eventKey: `status-change:${change.id}`,
    data: {
      status: change.to,
      previous_status: change.from,
      changed_at: change.changedAt.toISOString(),
      actor: change.actor,
    },
  });
}

/**
 * PATCH /v1/credentials/:id: sets a credential's status (`active`, `suspended`, `revoked`) in one
 * transaction with its status list entry and a history row, then publishes the webhook event.
 * 404 for an unknown credential or another tenant's, 409 once revoked (final). Asking for the
 * status it already has changes nothing and publishes again the event of the change that set it
 * (the scheduler drops the duplicate): a request whose event could not be queued (503) is retried.
 */
export async function changeCredentialStatus(
  deps: Pick<IssuerDependencies, "credentials" | "notary" | "now">,
  input: ChangeCredentialStatusInput,
): Promise<CredentialRecord> {
  const result = await deps.credentials.changeStatus({
    tenant: input.tenant,
    id: input.credentialId,
    to: input.status,
    actor: input.actor,
    at: deps.now(),
  });
  if (result.outcome === "not_found") throw notFound("Credential not found");
  if (result.outcome === "final") throw conflict("Credential is revoked; revocation is final");
  if (result.change) await publishChange(deps, result.record, result.change);
  return result.record;
}
