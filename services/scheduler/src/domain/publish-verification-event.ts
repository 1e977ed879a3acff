import { randomUUID } from "node:crypto";
import { badRequest } from "@attesto/runtime/errors";
import type { EventType, NewWebhookEvent } from "./model.js";
import type { NotaryDependencies } from "./ports.js";

const MAX_SESSION_ID_LENGTH = 255;
const MAX_RESULT_BYTES = 64 * 1024;

export interface VerificationEventInput {
  tenant: string;
  sessionId: string;
  verified: boolean;
  /** A JSON object: the event's `data.result`. */
  resultJson: string;
}

function parseResult(resultJson: string): object {
  if (Buffer.byteLength(resultJson, "utf8") > MAX_RESULT_BYTES) {
    throw badRequest(`result_json must be at most ${MAX_RESULT_BYTES} bytes`);
  }
  let result: unknown;
  try {
    result = JSON.parse(resultJson);
  } catch {
    throw badRequest("result_json must be a JSON object");
  }
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    throw badRequest("result_json must be a JSON object");
  }
  return result;
}

/**
 * `verification.completed` / `verification.failed` (README "Events"): one event per verification
 * session, whichever is published first (the dedupe key is the session), dispatched like every event
 * but only to endpoints that list its type. Whether it was new.
 */
export async function publishVerificationEvent(
  deps: Pick<NotaryDependencies, "events" | "now">,
  input: VerificationEventInput,
): Promise<boolean> {
  const tenant = input.tenant.trim().toLowerCase();
  if (!tenant || tenant.length > 100) throw badRequest("tenant is required (at most 100 characters)");
  if (!input.sessionId || input.sessionId.length > MAX_SESSION_ID_LENGTH) {
    throw badRequest(`session_id is required (at most ${MAX_SESSION_ID_LENGTH} characters)`);
  }
  const result = parseResult(input.resultJson);
  const type: EventType = input.verified ? "verification.completed" : "verification.failed";
  const now = deps.now();
  const eventId = randomUUID();
  const event: NewWebhookEvent = {
    eventId,
    dedupeKey: `verification:${tenant}:${input.sessionId}`,
    tenant,
    type,
    body: JSON.stringify({
      id: eventId,
      type,
      created_at: now.toISOString(),
      tenant,
      data: { session_id: input.sessionId, result },
    }),
    createdAt: now,
  };
  return deps.events.insertEvent(event);
}
