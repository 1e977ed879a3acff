import { backoffDelayMs } from "@attesto/runtime/backoff";
import { mayRetry } from "./backoff.js";
import { describeError } from "./describe-error.js";
import { type EventType, OPT_IN_EVENT_TYPES } from "./model.js";
import type { DeliveryOutcome, SchedulerDependencies, TenantWebhook } from "./ports.js";
import { EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signWebhook } from "./sign-webhook.js";

/** Thrown by a sender that refused the target before connecting (not allowed): retrying cannot help. */
export class TargetRefusedError extends Error {
  override name = "TargetRefusedError";
}

/**
 * Sends a dispatched event to the endpoints the tenant has for its type, once per endpoint: the
 * endpoints are read at dispatch time; later changes affect later events only.
 */
export async function dispatchWebhookEvent(
  deps: Pick<SchedulerDependencies, "events" | "webhooks">,
  eventId: string,
): Promise<void> {
  const event = await deps.events.findEvent(eventId);
  if (!event || event.dispatched) return;
  // Unreachable trust registry: the job fails and the queue retries it with backoff.
  const { webhooks } = await deps.webhooks.get(event.tenant);
  const urls = endpointsFor(webhooks, event.type);
  await deps.events.recordEventDispatched(eventId, urls);
}

/**
 * The endpoints an event of `type` goes to, each once: those that list it, and for a type that is
 * not opt-in those that list none.
 */
export function endpointsFor(webhooks: readonly TenantWebhook[], type: EventType): string[] {
  const urls = webhooks
    .filter((webhook) =>
      webhook.events.length === 0 ? !OPT_IN_EVENT_TYPES.includes(type) : webhook.events.includes(type),
    )
    .map((webhook) => webhook.url);
  return [...new Set(urls)];
}

/** What delivering a webhook uses. */
type DeliveryEdges = "deliveries" | "webhooks" | "sender" | "metrics" | "now" | "webhookRetry" | "version" | "log";

/**
 * One delivery attempt (the `deliver-webhook` job): sign with the tenant's current secret, POST,
 * and record the outcome in the delivery log. 2xx is delivered; anything else is retried with
 * backoff up to the limit, then dead-lettered. A refused target is dead at once.
 */
export async function deliverWebhook(
  deps: Pick<SchedulerDependencies, DeliveryEdges>,
  deliveryId: string,
  jobId: string,
): Promise<void> {
  const claim = await deps.deliveries.claimDeliveryAttempt(deliveryId, jobId);
  if (!claim) return;
  const { record, attempt } = claim;
  const { delivery, event } = record;
  const fail = (error: string, statusCode: number | undefined, terminal = false): DeliveryOutcome => {
    if (terminal || !mayRetry(deps.webhookRetry, attempt)) {
      return { state: "dead", statusCode, error, nextAttemptAt: undefined };
    }
    const nextAttemptAt = new Date(deps.now().getTime() + backoffDelayMs(deps.webhookRetry, attempt));
    return { state: "failed", statusCode, error, nextAttemptAt };
  };

  let outcome: DeliveryOutcome;
  if (attempt > deps.webhookRetry.maxAttempts) {
    outcome = fail("attempts exhausted (the last ones were interrupted)", undefined, true);
  } else {
    outcome = await attemptDelivery(deps, delivery.tenant, delivery.url, event, fail);
  }
  if (await deps.deliveries.recordDeliveryAttempt(deliveryId, attempt, outcome)) {
    deps.metrics.delivery(outcome.state);
    if (outcome.state === "failed" || outcome.state === "dead") logFailedDelivery(deps, record, attempt, outcome);
  }
}

/** The host of a target URL (never its path or query, which may carry a token). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid URL)";
  }
}

/** One warn line per failed attempt: target host, HTTP status (if any), attempt, and what happens next. */
function logFailedDelivery(
  deps: Pick<SchedulerDependencies, "log">,
  record: { delivery: { deliveryId: string; tenant: string; url: string }; event: { eventId: string; type: string } },
  attempt: number,
  outcome: DeliveryOutcome,
) {
  deps.log.warn(
    {
      tenant: record.delivery.tenant,
      delivery_id: record.delivery.deliveryId,
      event_id: record.event.eventId,
      event_type: record.event.type,
      target_host: hostOf(record.delivery.url),
      status: outcome.statusCode ?? null,
      attempt,
      error: outcome.error,
      next_attempt_at: outcome.nextAttemptAt?.toISOString() ?? null,
    },
    outcome.state === "dead" ? "webhook delivery failed; dead-lettered" : "webhook delivery failed; will retry",
  );
}

async function attemptDelivery(
  deps: Pick<SchedulerDependencies, "webhooks" | "now" | "sender" | "version">,
  tenant: string,
  url: string,
  event: { eventId: string; type: string; body: string },
  fail: (error: string, statusCode: number | undefined, terminal?: boolean) => DeliveryOutcome,
): Promise<DeliveryOutcome> {
  let secret: string;
  try {
    const configuration = await deps.webhooks.get(tenant);
    if (!configuration.webhooks.some((webhook) => webhook.url === url)) {
      return fail("the endpoint is no longer registered for the tenant", undefined, true);
    }
    secret = configuration.secret;
  } catch (error) {
    return fail(`webhook configuration unavailable: ${describeError(error)}`, undefined);
  }
  if (!secret) return fail("the tenant has no webhook signing secret", undefined, true);
  const timestamp = Math.floor(deps.now().getTime() / 1000);
  try {
    const { statusCode } = await deps.sender.send({
      url,
      body: event.body,
      headers: {
        "content-type": "application/json",
        "user-agent": `attesto-scheduler/${deps.version}`,
        [SIGNATURE_HEADER]: signWebhook(secret, event.body, timestamp),
        [EVENT_ID_HEADER]: event.eventId,
        [EVENT_TYPE_HEADER]: event.type,
      },
    });
    if (statusCode >= 200 && statusCode < 300) {
      return { state: "delivered", statusCode, error: undefined, nextAttemptAt: undefined };
    }
    return fail(`endpoint answered HTTP ${statusCode}`, statusCode);
  } catch (error) {
    return fail(describeError(error), undefined, error instanceof TargetRefusedError);
  }
}
