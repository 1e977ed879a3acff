import { timingSafeEqual } from "node:crypto";
import { badRequest, notFound } from "@attesto/runtime/errors";
import type { DeliveryState, Notarization, NotarizationState, WebhookDelivery } from "./model.js";
import type { SchedulerDependencies } from "./ports.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function parseUuid(value: string, field: string): string {
  const normalized = value.trim().toLowerCase();
  if (!UUID.test(normalized)) throw badRequest(`${field} must be a UUID`);
  return normalized;
}

export function parseLimit(limit: number): number {
  if (limit === 0) return 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw badRequest("limit must be between 1 and 500");
  return limit;
}

export async function getNotarization(deps: Pick<SchedulerDependencies, "notarizations">, objectId: string) {
  const notarization = await deps.notarizations.findNotarization(parseUuid(objectId, "object_id"));
  if (!notarization) throw notFound("Notarization not found");
  return notarization;
}

const DIGEST = /^[0-9a-f]{64}$/;

/**
 * GetAnchorProof (credential issuer, holder): a credential's anchor for whoever names its digest,
 * compared in constant time. An unknown object id and a wrong digest answer the same NOT_FOUND.
 */
export async function getAnchorProof(
  deps: Pick<SchedulerDependencies, "notarizations">,
  objectId: string,
  digest: string,
): Promise<Notarization> {
  const id = parseUuid(objectId, "object_id");
  const named = digest.trim().toLowerCase();
  if (!DIGEST.test(named)) throw badRequest("digest must be 64 lowercase hex characters");
  const notarization = await deps.notarizations.findNotarization(id);
  const enqueued = Buffer.from(notarization?.digest ?? "0".repeat(64), "hex");
  const same = enqueued.length === 32 && timingSafeEqual(enqueued, Buffer.from(named, "hex"));
  if (!notarization || !same) throw notFound("Notarization not found");
  return notarization;
}

/** The holder's (or issuer's) lookup of a credential's reference by its credential id. */
export async function getReference(
  deps: Pick<SchedulerDependencies, "notarizations">,
  credentialId: string,
  tenant: string,
): Promise<Notarization> {
  if (!credentialId) throw badRequest("credential_id is required");
  const notarization = await deps.notarizations.findNotarizationByCredential(credentialId);
  if (!notarization || (tenant && notarization.tenant !== tenant.trim().toLowerCase())) {
    throw notFound("Notarization not found");
  }
  return notarization;
}

export function listNotarizations(
  deps: Pick<SchedulerDependencies, "notarizations">,
  filter: { tenant: string; state: NotarizationState | undefined; limit: number },
) {
  return deps.notarizations.listNotarizations({
    ...(filter.tenant ? { tenant: filter.tenant.trim().toLowerCase() } : {}),
    ...(filter.state ? { state: filter.state } : {}),
    limit: parseLimit(filter.limit),
  });
}

export function listWebhookDeliveries(
  deps: Pick<SchedulerDependencies, "deliveries">,
  filter: { tenant: string; eventId: string; state: DeliveryState | undefined; limit: number },
): Promise<WebhookDelivery[]> {
  return deps.deliveries.listDeliveries({
    ...(filter.tenant ? { tenant: filter.tenant.trim().toLowerCase() } : {}),
    ...(filter.eventId ? { eventId: parseUuid(filter.eventId, "event_id") } : {}),
    ...(filter.state ? { state: filter.state } : {}),
    limit: parseLimit(filter.limit),
  });
}
