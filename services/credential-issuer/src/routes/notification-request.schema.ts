import { describeFieldErrors, InvalidNotificationRequest } from "@attesto/runtime/errors";
import { parseFields } from "@attesto/runtime/http";
import { z } from "zod";
import type { NotificationEvent } from "../domain/credential-record.js";
import type { NotificationRequest } from "../domain/record-notification.js";

/** OID4VCI 1.0 §11.1: event_description is limited to %x20-21 / %x23-5B / %x5D-7E (no `"` or `\`). */
const DESCRIPTION_CHARSET = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/** Longest accepted event_description (the specification sets none; this bounds what is stored). */
export const MAX_EVENT_DESCRIPTION_LENGTH = 1000;
/** Longest accepted notification_id (ours are 43 characters). */
const MAX_NOTIFICATION_ID_LENGTH = 128;

const EVENTS = [
  "credential_accepted",
  "credential_failure",
  "credential_deleted",
] as const satisfies readonly NotificationEvent[];

/** The body of POST /notification (OID4VCI 1.0 §11.1): one schema for the check, the type and the document. */
export const zNotificationRequest = z
  .object({
    notification_id: z
      .string()
      .min(1)
      .max(MAX_NOTIFICATION_ID_LENGTH)
      .describe("The notification_id of a credential response"),
    event: z.enum(EVENTS),
    event_description: z
      .string()
      .max(MAX_EVENT_DESCRIPTION_LENGTH)
      .regex(DESCRIPTION_CHARSET, { error: 'must be printable ASCII without " or \\' })
      .optional()
      .describe(`Printable ASCII without " or \\, at most ${MAX_EVENT_DESCRIPTION_LENGTH} characters`),
  })
  .loose()
  .meta({
    examples: [{ notification_id: "3fwe98js9m2oq8Kd0Bq7XuYV0sIaHF8p3BQkV3oNwA4", event: "credential_accepted" }],
  });

/**
 * The body checked by its schema after the access token (its errors are OID4VCI's): the request, or
 * 400 `invalid_notification_request` naming every failing field.
 */
export function notificationRequestOf(body: unknown): NotificationRequest {
  const parsed = parseFields(zNotificationRequest, body);
  if (!parsed.success) {
    const fieldErrors = parsed.issues.map(({ field, message }) => ({ field, message }));
    throw new InvalidNotificationRequest(describeFieldErrors(fieldErrors), { fieldErrors });
  }
  const { notification_id: notificationId, event, event_description: description } = parsed.data;
  return { notificationId, event, ...(description === undefined ? {} : { description }) };
}
