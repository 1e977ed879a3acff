import type { AccessTokenClaims } from "@attesto/protocol";
import { InvalidNotificationId, InvalidNotificationRequest } from "@attesto/runtime/errors";
import type { IssuerDependencies } from "./dependencies.js";
import type { CredentialEventType } from "./ports.js";
import type { CredentialRecord, NotificationEvent } from "./repositories.js";

/** The events a wallet may report (OID4VCI 1.0 §11.1) and the webhook each one becomes. */
const WEBHOOK_OF: Record<NotificationEvent, CredentialEventType> = {
  credential_accepted: "credential.accepted",
  credential_failure: "credential.failure",
  credential_deleted: "credential.deleted",
};

/** OID4VCI 1.0 §11.1: event_description is limited to %x20-21 / %x23-5B / %x5D-7E (no `"` or `\`). */
const DESCRIPTION_CHARSET = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/** Longest accepted event_description (the specification sets none; this bounds what is stored). */
export const MAX_EVENT_DESCRIPTION_LENGTH = 1000;
/** Longest accepted notification_id (ours are 43 characters). */
const MAX_NOTIFICATION_ID_LENGTH = 128;

export interface NotificationRequest {
  notificationId: string;
  event: NotificationEvent;
  description?: string;
}

const isEvent = (value: unknown): value is NotificationEvent =>
  typeof value === "string" && Object.hasOwn(WEBHOOK_OF, value);

/** The notification request body -> 400 `invalid_notification_request` when malformed. */
export function parseNotificationRequest(body: unknown): NotificationRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new InvalidNotificationRequest("the request body must be a JSON object");
  }
  const { notification_id: notificationId, event, event_description: description } = body as Record<string, unknown>;
  if (
    typeof notificationId !== "string" ||
    notificationId === "" ||
    notificationId.length > MAX_NOTIFICATION_ID_LENGTH
  ) {
    throw new InvalidNotificationRequest("notification_id is required (a non-empty string)");
  }
  if (!isEvent(event)) {
    throw new InvalidNotificationRequest("event must be credential_accepted, credential_failure or credential_deleted");
  }
  if (description !== undefined) {
    if (typeof description !== "string" || !DESCRIPTION_CHARSET.test(description)) {
      throw new InvalidNotificationRequest('event_description must be printable ASCII without " or \\');
    }
    if (description.length > MAX_EVENT_DESCRIPTION_LENGTH) {
      throw new InvalidNotificationRequest(
        `event_description must be at most ${MAX_EVENT_DESCRIPTION_LENGTH} characters`,
      );
    }
  }
  return { notificationId, event, ...(description === undefined ? {} : { description }) };
}

/** One webhook per credential, notification_id and event: a repeated notification queues nothing new. */
async function publishNotification(deps: IssuerDependencies, record: CredentialRecord, request: NotificationRequest) {
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
  deps: IssuerDependencies,
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
