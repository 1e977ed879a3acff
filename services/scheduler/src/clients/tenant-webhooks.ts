import type { tenantV1 } from "@attesto/proto";
import { createLoadingCache } from "@attesto/runtime/cache";
import type { Client } from "@connectrpc/connect";
import type { TenantWebhooks, WebhookDirectory } from "../domain/ports.js";
import { isNotFound, rpcFailure } from "./rpc-failure.js";

const NONE: TenantWebhooks = { webhooks: [], secret: "" };
/** Tenants whose webhooks are remembered at once (the least recently used goes first). */
const CACHED_TENANTS = 10_000;

/**
 * TenantService.GetWebhooks with a short per-tenant cache (`ttlMs`; 0 disables it): endpoint and
 * secret changes reach deliveries within that time. An unknown tenant has no webhooks; an
 * unreachable trust registry is an error (the job is retried).
 */
export function createTenantWebhooks(
  client: Client<typeof tenantV1.TenantService>,
  options: { ttlMs: number; now?: () => number },
): WebhookDirectory {
  const cache = createLoadingCache<TenantWebhooks>({ max: CACHED_TENANTS, ttlMs: options.ttlMs, now: options.now });
  const load = async (tenant: string): Promise<TenantWebhooks> => {
    try {
      const response = await client.getWebhooks({ tenant });
      return {
        webhooks: response.webhooks.map((webhook) => ({ url: webhook.url, events: [...webhook.events] })),
        secret: response.secret,
      };
    } catch (error) {
      if (!isNotFound(error)) throw rpcFailure("trust registry", error);
      return NONE;
    }
  };
  return { get: (tenant) => cache.get(tenant, () => load(tenant)) };
}
