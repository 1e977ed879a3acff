import { tenantV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { testCredentialSigner } from "@attesto/runtime/testing";
import { applyTenant } from "../../hostile/support/flows.js";
import type { RaceContext } from "./races.js";
import { startReplicaPlatform } from "./replica-platform.js";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.js";

/**
 * What the replica suite (test/replicas/guarantees.test.ts) and its longer run (hack/replicas)
 * start: a local webhook receiver, the replica platform allowed to deliver to it, with notarization
 * batches every 200 ms and no webhook configuration cache (so that new targets apply at once), and
 * one tenant registered through the balancer.
 */
export interface ReplicaScenario {
  context: RaceContext;
  receiver: WebhookReceiver;
  /** Points the tenant's webhooks (every event) at `targets` of the receiver, as the operator does over RPC. */
  setWebhookTargets(targets: string[]): Promise<void>;
  /** How many of the tenant's webhook deliveries the scheduler recorded as delivered. */
  delivered(): Promise<number>;
  close(): Promise<void>;
}

export async function startReplicaScenario(label: string): Promise<ReplicaScenario> {
  const receiver = await startWebhookReceiver();
  let platform: Awaited<ReturnType<typeof startReplicaPlatform>>;
  try {
    platform = await startReplicaPlatform({
      label,
      env: {
        // The webhook receiver is a loopback address, allowed explicitly.
        OUTBOUND_ALLOW_HOSTS: receiver.host,
        SCHEDULER_NOTARY_BATCH_INTERVAL_MS: "200",
        SCHEDULER_WEBHOOK_CONFIG_CACHE_MS: "0",
      },
    });
  } catch (error) {
    await receiver.close();
    throw error;
  }
  const close = async () => {
    await platform.close();
    await receiver.close();
  };
  try {
    const tenant = await applyTenant(platform.url);
    const context: RaceContext = { platform, tenant, issuerId: `${platform.url.issuer}/${tenant.tenant}` };
    const registry = createRpcClient(tenantV1.TenantService, {
      baseUrl: platform.trustRegistryInternalUrl,
      audience: "trust-registry",
      signer: testCredentialSigner("operator"),
      timeoutMs: 10_000,
    });
    return {
      context,
      receiver,
      async setWebhookTargets(targets) {
        await registry.setWebhooks({
          tenant: tenant.tenant,
          webhooks: targets.map((target) => ({ url: receiver.urlOf(target), events: [] })),
        });
      },
      delivered: () =>
        platform.count("scheduler", "webhook_deliveries", "tenant = $1 AND state = 'delivered'", [tenant.tenant]),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
