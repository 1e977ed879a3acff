import type { tenantV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import type { TenantWebhooks, WebhookDirectory } from "../domain/ports.js";
import { isNotFound, rpcFailure } from "./rpc-failure.js";

const NONE: TenantWebhooks = { webhooks: [], secret: "" };

/**
 * TenantService.GetWebhooks with a short per-tenant cache (`ttlMs`; 0 disables it): endpoint and
 * secret changes reach deliveries within that time. An unknown tenant has no webhooks; an
 * unreachable trust registry is an error (the job is retried).
 */
export function createTenantWebhooks(
  client: Client<typeof tenantV1.TenantService>,
  options: { ttlMs: number; now?: () => number },
): WebhookDirectory {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { value: TenantWebhooks; expiresAt: number }>();
  return {
    async get(tenant) {
      const cached = cache.get(tenant);
      if (cached && cached.expiresAt > now()) return cached.value;
      let value: TenantWebhooks;
      try {
        const response = await client.getWebhooks({ tenant });
        value = {
          webhooks: response.webhooks.map((webhook) => ({ url: webhook.url, events: [...webhook.events] })),
          secret: response.secret,
        };
      } catch (error) {
        if (!isNotFound(error)) throw rpcFailure("trust registry", error);
        value = NONE;
      }
      if (options.ttlMs > 0) {
        if (cache.size > 10_000) cache.clear();
        cache.set(tenant, { value, expiresAt: now() + options.ttlMs });
      }
      return value;
    },
  };
}
