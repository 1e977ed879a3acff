import type { BackoffPolicy } from "@attesto/runtime/backoff";

/** How often and how far apart a failed job is retried (equal jitter: the runtime's default). */
export interface RetryPolicy extends BackoffPolicy {
  maxAttempts: number;
}

/** Whether another attempt is allowed after `attempt` failed. */
export const mayRetry = (policy: RetryPolicy, attempt: number): boolean => attempt < policy.maxAttempts;
