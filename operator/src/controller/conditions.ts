import type { Condition, ConditionType } from "../resources.js";

export interface ConditionUpdate {
  type: ConditionType;
  status: Condition["status"];
  /** PascalCase, machine-readable. */
  reason: string;
  message: string;
}

/**
 * Merges condition updates into the existing list. `lastTransitionTime` changes only when a
 * condition's status flips (a new reason or message alone keeps it), per the API conventions.
 */
export function mergeConditions(
  existing: readonly Condition[] | undefined,
  updates: readonly ConditionUpdate[],
  generation: number | undefined,
  now: Date,
): Condition[] {
  const result: Condition[] = [...(existing ?? [])];
  for (const update of updates) {
    const index = result.findIndex((condition) => condition.type === update.type);
    const previous = index >= 0 ? result[index] : undefined;
    const next: Condition = {
      type: update.type,
      status: update.status,
      observedGeneration: generation,
      lastTransitionTime:
        previous && previous.status === update.status ? previous.lastTransitionTime : now.toISOString(),
      reason: update.reason,
      message: update.message,
    };
    if (index >= 0) result[index] = next;
    else result.push(next);
  }
  const order: ConditionType[] = ["Ready", "Reconciling", "Degraded"];
  return result.sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
}

export const findCondition = (conditions: readonly Condition[] | undefined, type: ConditionType) =>
  conditions?.find((condition) => condition.type === type);

export const isConditionTrue = (conditions: readonly Condition[] | undefined, type: ConditionType) =>
  findCondition(conditions, type)?.status === "True";

/** The three conditions of a reconciled resource. */
export function succeeded(reason: string, message: string): ConditionUpdate[] {
  return [
    { type: "Ready", status: "True", reason, message },
    { type: "Reconciling", status: "False", reason, message: "desired state applied" },
    { type: "Degraded", status: "False", reason, message: "no problems" },
  ];
}

/** A failure that needs a change (of the spec, a Secret, the platform) before a retry can succeed. */
export function blocked(reason: string, message: string): ConditionUpdate[] {
  return [
    { type: "Ready", status: "False", reason, message },
    { type: "Reconciling", status: "False", reason, message: "waiting for a change" },
    { type: "Degraded", status: "True", reason, message },
  ];
}

/** A failure that is being retried with backoff. */
export function retrying(reason: string, message: string, attempt: number, maxAttempts: number): ConditionUpdate[] {
  return [
    { type: "Ready", status: "False", reason, message },
    { type: "Reconciling", status: "True", reason: "Retrying", message: `attempt ${attempt} of ${maxAttempts} failed` },
    { type: "Degraded", status: "True", reason, message },
  ];
}

/** Waiting on another resource (e.g. the referenced Tenant): not an error of this resource. */
export function waiting(reason: string, message: string): ConditionUpdate[] {
  return [
    { type: "Ready", status: "False", reason, message },
    { type: "Reconciling", status: "True", reason, message },
    { type: "Degraded", status: "False", reason, message: "waiting on a dependency" },
  ];
}
