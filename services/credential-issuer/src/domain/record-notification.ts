import type { AccessTokenClaims } from "@attesto/protocol";
import { InvalidNotificationId } from "@attesto/runtime/errors";
import type { CredentialRecord, NotificationEvent } from "./credential-record.js";
import type { CredentialEventType, IssuerDependencies } from "./ports.js";

/** The events a wallet may report (OID4VCI 1.0 §11.1) and the webhook each one becomes. */
const WEBHOOK_OF: Record<NotificationEvent, CredentialEventType> = {
  credential_accepted: "credential.accepted",
  credential_failure: "credential.failure",
  credential_deleted: "credential.deleted",
};

/** A notification request (OID4VCI 1.0 §11.1) once its body passed its schema. */
export interface NotificationRequest {
  notificationId: string;
  event: NotificationEvent;
  description?: string;
}

/** One webhook per credential, notification_id and event: a repeated notification queues nothing new. */
async function publishNotification(
  deps: Pick<IssuerDependencies, "notary">,
  record: CredentialRecord,
  request: NotificationRequest,
) {
  await deps.notary.publishCredentialEvent({
    tenant: record.tenant,
    type: WEBHOOK_OF[request.event],
    credentialId: record.id,
    offerId: record.offerId,
    eventKey: `notification:${request.notificationId}:${request.event}:${record.id}`,
    data: {
      event: request.event,
      ...(request.description === undefined ? {} : { event_description: request.description }),
    },
  });
}

/**
 * POST /notification after the access token (and its DPoP proof) passed: the event is stored on
 * every credential the notification_id was issued with, then forwarded to the tenant as webhooks.
 * A notification_id that is unknown or was issued to another offer's token is
 * `invalid_notification_id`: a wallet cannot learn whether another wallet's id exists.
 */
export async function recordNotification(
  deps: Pick<IssuerDependencies, "credentials" | "notary" | "now">,
  token: AccessTokenClaims,
  request: NotificationRequest,
): Promise<void> {
  const records = await deps.credentials.recordNotification({
    tenant: token.tenant,
    offerId: token.offerId,
    notificationId: request.notificationId,
    event: request.event,
    ...(request.description === undefined ? {} : { description: request.description }),
    at: deps.now(),
  });
  if (records.length === 0) {
    throw new InvalidNotificationId("notification_id is unknown or was not issued to this access token");
  }
  for (const record of records) await publishNotification(deps, record, request);
}
