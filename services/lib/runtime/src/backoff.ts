/**
 * Exponential backoff, the one retry delay of the platform (the scheduler's anchoring and webhook
 * retries, the internal RPC client's retries, the operator's work queue).
 */
export interface BackoffPolicy {
  /** The delay before the first retry, before jitter. */
  baseDelayMs: number;
  /** The cap on the delay, before jitter. */
  maxDelayMs: number;
  /**
   * The spread, as factors of the capped delay: the delay is drawn uniformly from
   * [d * min, d * max]. Default `EQUAL_JITTER` ([d/2, d]).
   */
  jitter?: { min: number; max: number };
}

/** "Equal jitter": half the capped delay fixed, half random; spreads the retries of work that failed together. */
export const EQUAL_JITTER = { min: 0.5, max: 1 } as const;

/**
 * The delay before attempt `attempt + 1`, after `attempt` (>= 1) failed:
 * d = min(maxDelayMs, baseDelayMs * 2^(attempt - 1)), spread by the policy's jitter.
 */
export function backoffDelayMs(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const capped = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  const { min, max } = policy.jitter ?? EQUAL_JITTER;
  return Math.round(capped * (min + (max - min) * random()));
}
