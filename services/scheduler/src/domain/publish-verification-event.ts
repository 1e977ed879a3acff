import { badRequest } from "@attesto/runtime/errors";
import { parseJsonObject, requireTenant } from "./inputs.js";
import type { SchedulerDependencies } from "./ports.js";
import { newWebhookEvent } from "./webhook-events.js";

const MAX_SESSION_ID_LENGTH = 255;
const MAX_RESULT_BYTES = 64 * 1024;

export interface VerificationEventInput {
  tenant: string;
  sessionId: string;
  verified: boolean;
  /** A JSON object: the event's `data.result`. */
  resultJson: string;
}

/**
 * `verification.completed` / `verification.failed` (README "Events"): one event per verification
 * session, whichever is published first (the dedupe key is the session), dispatched like every event
 * but only to endpoints that list its type. Whether it was new.
 */
export async function publishVerificationEvent(
  deps: Pick<SchedulerDependencies, "events" | "now">,
  input: VerificationEventInput,
): Promise<boolean> {
  const tenant = requireTenant(input.tenant);
  if (!input.sessionId || input.sessionId.length > MAX_SESSION_ID_LENGTH) {
    throw badRequest(`session_id is required (at most ${MAX_SESSION_ID_LENGTH} characters)`);
  }
  const result = parseJsonObject(input.resultJson, "result_json", MAX_RESULT_BYTES);
  return deps.events.insertEvent(
    newWebhookEvent({
      type: input.verified ? "verification.completed" : "verification.failed",
      dedupeKey: `verification:${tenant}:${input.sessionId}`,
      tenant,
      data: { session_id: input.sessionId, result },
      now: deps.now(),
    }),
  );
}
