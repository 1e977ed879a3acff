import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "Attesto-Signature";
export const EVENT_ID_HEADER = "Attesto-Event-Id";
export const EVENT_TYPE_HEADER = "Attesto-Event-Type";
/** Receivers should refuse signatures older (or newer) than this. */
export const REPLAY_WINDOW_SECONDS = 300;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (the scheme of Stripe's webhooks). */
export function signWebhook(secret: string, body: string, timestampSeconds: number): string {
  const mac = createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex");
  return `t=${timestampSeconds},v1=${mac}`;
}

/**
 * What a receiver does (README "Verifying a webhook"), kept here for tests and for Node receivers:
 * parse t and every v1, check t within the window, compare in constant time.
 */
export function verifyWebhookSignature(
  secret: string,
  body: string,
  header: string,
  nowSeconds: number,
  windowSeconds = REPLAY_WINDOW_SECONDS,
): boolean {
  const parts = header.split(",").map((part) => part.trim().split("="));
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > windowSeconds) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(`${t}.${body}`).digest("hex"));
  return parts
    .filter(([k]) => k === "v1")
    .some(([, v]) => v !== undefined && v.length === expected.length && timingSafeEqual(Buffer.from(v), expected));
}
