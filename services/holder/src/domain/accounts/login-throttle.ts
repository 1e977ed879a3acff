import { isIP } from "node:net";

/**
 * Failed holder logins are throttled per (account, client network) with growing delays, never by
 * locking the account: whoever guesses from one address slows only themselves, and the owner logging
 * in from elsewhere is not affected. Counted in the database, so the delays hold across replicas.
 */
export interface LoginThrottlePolicy {
  /** Failures answered at once before delays start. */
  freeFailures: number;
  /** Delay after the first failure beyond the free ones; doubled after each further failure. */
  baseDelaySeconds: number;
  /** The delay never grows beyond this. */
  maxDelaySeconds: number;
  /** A (account, client) pair quiet for this long starts again from zero. */
  forgetAfterSeconds: number;
}

export const LOGIN_THROTTLE_POLICY: LoginThrottlePolicy = {
  freeFailures: 5,
  baseDelaySeconds: 1,
  maxDelaySeconds: 15 * 60,
  forgetAfterSeconds: 24 * 60 * 60,
};

/** Who is attempting: the account and the client's network (an IPv4 address, or an IPv6 /64). */
export interface LoginAttemptKey {
  accountUuid: string;
  client: string;
}

/** What is remembered of one (account, client) pair. */
export interface LoginAttemptState {
  /** Attempts not (yet) followed by a successful login; an attempt counts before its password is checked. */
  failures: number;
  lastAttemptAt: Date;
  /** No attempt is answered before this time. */
  blockedUntil: Date;
}

export type LoginAttemptDecision =
  | { allowed: true; next: LoginAttemptState }
  | { allowed: false; retryAfterSeconds: number };

/** Seconds to wait after the `failures`-th failure: none while free, then doubling up to the cap. */
export function delayAfter(failures: number, policy: LoginThrottlePolicy): number {
  if (failures < policy.freeFailures) return 0;
  const doublings = Math.min(failures - policy.freeFailures, 30);
  return Math.min(policy.maxDelaySeconds, policy.baseDelaySeconds * 2 ** doublings);
}

/**
 * Whether one more attempt of a pair may be answered at `now`. An allowed attempt is counted as a
 * failure at once (a concurrent flood cannot overrun the delays); a success clears the pair.
 */
export function decideLoginAttempt(
  current: LoginAttemptState | undefined,
  now: Date,
  policy: LoginThrottlePolicy,
): LoginAttemptDecision {
  if (current && current.blockedUntil.getTime() > now.getTime()) {
    return { allowed: false, retryAfterSeconds: Math.ceil((current.blockedUntil.getTime() - now.getTime()) / 1000) };
  }
  const forgotten = !current || now.getTime() - current.lastAttemptAt.getTime() > policy.forgetAfterSeconds * 1000;
  const failures = (forgotten ? 0 : current.failures) + 1;
  const blockedUntil = new Date(now.getTime() + delayAfter(failures, policy) * 1000);
  return { allowed: true, next: { failures, lastAttemptAt: now, blockedUntil } };
}

/**
 * The client's network as a throttling key: an IPv4 address as is (also when IPv4-mapped), an IPv6
 * address reduced to its /64 (one subscriber usually holds a whole /64 and could rotate within it).
 */
export function clientNetworkOf(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIP(ip) !== 6) return ip;
  const [head = "", tail] = ip.toLowerCase().split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
