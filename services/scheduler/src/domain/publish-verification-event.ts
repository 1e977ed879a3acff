import { badRequest } from "@attesto/runtime/errors";
import { endpointsFor } from "./deliver-webhook.js";
import { parseJsonObject, requireTenant } from "./inputs.js";
import type { EventType } from "./model.js";
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
 * Whether the tenant may have an endpoint for `type`: its webhooks, read as dispatch reads them
 * (the same cache, WEBHOOK_CONFIG_CACHE_MS); when the trust registry cannot say, it may.
 */
async function mayHaveEndpointFor(deps: Pick<SchedulerDependencies, "webhooks">, tenant: string, type: EventType) {
  try {
    return endpointsFor((await deps.webhooks.get(tenant)).webhooks, type).length > 0;
  } catch {
    // Stored and dispatched as before: the dispatch job retries the lookup with backoff.
    return true;
  }
}

/**
 * `verification.completed` / `verification.failed` (README "Events"): one event per verification
 * session, whichever is published first (the dedupe key is the session), dispatched like every event
 * but only to endpoints that list its type. Whether it was new. These types are opt-in: when no
 * endpoint of the tenant lists the type, nothing is stored (no event, no dispatch job: a
 * verification of a tenant without such an endpoint costs the scheduler no statement) and the
 * answer is false.
 */
export async function publishVerificationEvent(
  deps: Pick<SchedulerDependencies, "events" | "webhooks" | "now">,
  input: VerificationEventInput,
): Promise<boolean> {
  const tenant = requireTenant(input.tenant);
  if (!input.sessionId || input.sessionId.length > MAX_SESSION_ID_LENGTH) {
    throw badRequest(`session_id is required (at most ${MAX_SESSION_ID_LENGTH} characters)`);
  }
  const result = parseJsonObject(input.resultJson, "result_json", MAX_RESULT_BYTES);
  const type: EventType = input.verified ? "verification.completed" : "verification.failed";
  if (!(await mayHaveEndpointFor(deps, tenant, type))) return false;
  return deps.events.insertEvent(
    newWebhookEvent({
      type,
      dedupeKey: `verification:${tenant}:${input.sessionId}`,
      tenant,
      data: { session_id: input.sessionId, result },
      now: deps.now(),
    }),
  );
}
