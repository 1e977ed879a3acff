import { randomBytes } from "node:crypto";
import { badRequest, notFound } from "@attesto/runtime/errors";
import type { SecretSealer, TenantWebhook, WebhookRepository } from "./ports.js";

/** Event types the scheduler emits (services/scheduler/README.md). */
export const WEBHOOK_EVENT_TYPES = [
  "credential.notarized",
  "credential.notarization_failed",
  // Opt-in (verifier results): sent only to endpoints that list them.
  "verification.completed",
  "verification.failed",
  // The credential issuer's (PublishCredentialEvent): status changes and wallet notifications.
  "credential.status_changed",
  "credential.accepted",
  "credential.failure",
  "credential.deleted",
] as const;
export const MAX_WEBHOOKS = 10;
const MAX_URL_LENGTH = 2048;
const SECRET = /^[\x21-\x7e]{24,256}$/;

export interface WebhookDependencies {
  webhooks: WebhookRepository;
  webhookSealer: SecretSealer;
}

/** The envelope context: a sealed secret copied to another tenant's row does not open. */
export const webhookSecretContext = (tenant: string) => `webhook:${tenant}`;

/**
 * Format only: absolute http(s) URL with a host, no credentials, no fragment. Whether the target
 * is a public address is decided by the scheduler at delivery time, after resolving the host
 * (a registration-time check could not see later DNS changes).
 */
function parseWebhookUrl(raw: string): string {
  if (raw.length === 0 || raw.length > MAX_URL_LENGTH) {
    throw badRequest(`webhook url must be 1 to ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest("webhook url must be an absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw badRequest("webhook url must use http or https");
  if (!url.hostname) throw badRequest("webhook url must name a host");
  if (url.username || url.password) throw badRequest("webhook url must not contain credentials");
  if (url.hash) throw badRequest("webhook url must not contain a fragment");
  return url.href;
}

export function parseWebhooks(webhooks: ReadonlyArray<{ url: string; events: readonly string[] }>): TenantWebhook[] {
  if (webhooks.length > MAX_WEBHOOKS) throw badRequest(`at most ${MAX_WEBHOOKS} webhooks per tenant`);
  const seen = new Set<string>();
  return webhooks.map((webhook) => {
    const url = parseWebhookUrl(webhook.url);
    if (seen.has(url)) throw badRequest(`webhook url ${url} is listed twice`);
    seen.add(url);
    for (const event of webhook.events) {
      if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event)) {
        throw badRequest(`unknown webhook event type '${event}' (known: ${WEBHOOK_EVENT_TYPES.join(", ")})`);
      }
    }
    return { url, events: [...new Set(webhook.events)] };
  });
}

/** `whsec_` and 32 random bytes (base64url): 256 bits for HMAC-SHA256. */
export const generateWebhookSecret = () => `whsec_${randomBytes(32).toString("base64url")}`;

/**
 * SetWebhooks (operator): replaces the tenant's endpoints; a given secret replaces the stored one,
 * otherwise it is kept, or generated when there is none (and then returned, once). The secret is
 * stored sealed, never in the clear.
 */
export async function setWebhooks(
  deps: WebhookDependencies,
  input: { tenant: string; webhooks: ReadonlyArray<{ url: string; events: readonly string[] }>; secret: string },
): Promise<{ generatedSecret: string | undefined }> {
  const tenant = input.tenant.trim().toLowerCase();
  const webhooks = parseWebhooks(input.webhooks);
  if (input.secret && !SECRET.test(input.secret)) {
    throw badRequest("secret must be 24 to 256 printable ASCII characters without spaces");
  }
  const seal = (secret: string) =>
    deps.webhookSealer.seal(new TextEncoder().encode(secret), webhookSecretContext(tenant));
  let generated: string | undefined;
  const change = await deps.webhooks.replace(tenant, webhooks, input.secret ? seal(input.secret) : undefined, () => {
    generated = generateWebhookSecret();
    return seal(generated);
  });
  if (change === undefined) throw notFound("Tenant not found");
  return { generatedSecret: change === "generated" ? generated : undefined };
}

/** GetWebhooks (scheduler): endpoints and the opened secret; none configured is empty, not an error. */
export async function getWebhooks(
  deps: WebhookDependencies & { tenantExists(tenant: string): Promise<boolean> },
  rawTenant: string,
): Promise<{ webhooks: TenantWebhook[]; secret: string }> {
  const tenant = rawTenant.trim().toLowerCase();
  const stored = await deps.webhooks.find(tenant);
  if (!stored) {
    if (!(await deps.tenantExists(tenant))) throw notFound("Tenant not found");
    return { webhooks: [], secret: "" };
  }
  const secret = new TextDecoder().decode(deps.webhookSealer.open(stored.secretEnvelope, webhookSecretContext(tenant)));
  return { webhooks: stored.webhooks, secret };
}
