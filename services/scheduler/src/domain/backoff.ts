/** Exponential backoff with "equal jitter": half the capped delay fixed, half random. */
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Delay before attempt `attempt + 1`, after `attempt` (>= 1) failed:
 * d = min(maxDelayMs, baseDelayMs * 2^(attempt - 1)); the result lies in [d/2, d].
 * The jitter spreads the retries of many jobs that failed together (one ledger outage).
 */
export function backoffDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const capped = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  return Math.round(capped / 2 + (capped / 2) * random());
}

/** Whether another attempt is allowed after `attempt` failed. */
export const mayRetry = (policy: RetryPolicy, attempt: number): boolean => attempt < policy.maxAttempts;
