import { badRequest } from "@attesto/runtime/errors";
import { parseJsonObject, requireTenant } from "./inputs.js";
import type { EventType } from "./model.js";
import type { SchedulerDependencies } from "./ports.js";
import { newWebhookEvent } from "./webhook-events.js";

/** Event types the credential issuer publishes (README "Events"). */
export const CREDENTIAL_EVENT_TYPES = [
  "credential.status_changed",
  "credential.accepted",
  "credential.failure",
  "credential.deleted",
] as const satisfies readonly EventType[];

const MAX_KEY_LENGTH = 255;
const MAX_DATA_BYTES = 16 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface CredentialEventInput {
  tenant: string;
  type: string;
  credentialId: string;
  offerId: string;
  eventKey: string;
  /** A JSON object merged into the event's `data`. */
  dataJson: string;
}

/**
 * `credential.status_changed`, `credential.accepted`, `credential.failure`, `credential.deleted`
 * (README "Events"): one event per (tenant, event key), dispatched like every event. Whether it was new.
 */
export async function publishCredentialEvent(
  deps: Pick<SchedulerDependencies, "events" | "now">,
  input: CredentialEventInput,
): Promise<boolean> {
  const tenant = requireTenant(input.tenant);
  const type = CREDENTIAL_EVENT_TYPES.find((known) => known === input.type);
  if (!type) throw badRequest(`type must be one of ${CREDENTIAL_EVENT_TYPES.join(", ")}`);
  if (!UUID.test(input.credentialId)) throw badRequest("credential_id must be a lowercase UUID");
  if (!UUID.test(input.offerId)) throw badRequest("offer_id must be a lowercase UUID");
  if (!input.eventKey || input.eventKey.length > MAX_KEY_LENGTH) {
    throw badRequest(`event_key is required (at most ${MAX_KEY_LENGTH} characters)`);
  }
  const data = input.dataJson === "" ? {} : parseJsonObject(input.dataJson, "data_json", MAX_DATA_BYTES);
  return deps.events.insertEvent(
    newWebhookEvent({
      type,
      dedupeKey: `credential-event:${tenant}:${input.eventKey}`,
      tenant,
      data: { ...data, offer_id: input.offerId, credential_id: input.credentialId },
      now: deps.now(),
    }),
  );
}
