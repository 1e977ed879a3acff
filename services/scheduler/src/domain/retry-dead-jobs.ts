import type { SchedulerDependencies } from "./ports.js";
import { parseUuid } from "./queries.js";

export interface RetryDeadJobsInput {
  tenant?: string | undefined;
  objectIds?: string[] | undefined;
  deliveryIds?: string[] | undefined;
}

/**
 * Operator action: dead batches and deliveries get a fresh round of attempts. With only object
 * ids, only those notarizations' batches; with only delivery ids, only those deliveries; with
 * neither, everything dead (of the tenant, when given).
 */
export async function retryDeadJobs(
  deps: Pick<SchedulerDependencies, "notarizations" | "deliveries">,
  input: RetryDeadJobsInput,
) {
  const tenant = input.tenant?.trim().toLowerCase() || undefined;
  const objectIds = (input.objectIds ?? []).map((id) => parseUuid(id, "object_ids"));
  const deliveryIds = (input.deliveryIds ?? []).map((id) => parseUuid(id, "delivery_ids"));
  const everything = objectIds.length === 0 && deliveryIds.length === 0;
  const batches =
    everything || objectIds.length > 0
      ? await deps.notarizations.retryDeadBatches({ tenant, ...(objectIds.length ? { objectIds } : {}) })
      : { batches: 0, notarizations: 0 };
  const webhookDeliveries =
    everything || deliveryIds.length > 0
      ? await deps.deliveries.retryDeadDeliveries({ tenant, ...(deliveryIds.length ? { deliveryIds } : {}) })
      : 0;
  return { ...batches, webhookDeliveries };
}
