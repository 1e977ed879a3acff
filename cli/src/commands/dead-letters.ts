import { notaryV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import type { CommandIo } from "./io.js";

const USAGE = [
  "usage: attesto dead-letters list [--tenant <tenant>]",
  "       attesto dead-letters retry [--tenant <tenant>] [<object_id> ...] [--delivery <delivery_id> ...]",
].join("\n");

/**
 * `attesto dead-letters`: the operator's view of dead letters through NotaryService. `list` prints
 * dead notarizations and dead webhook deliveries (tab-separated), `retry` gives them a new round of
 * attempts. Exit code: 0 done, 1 failed call, 2 usage.
 */
export async function runDeadLetters(
  args: string[],
  notary: Client<typeof notaryV1.NotaryService>,
  io: CommandIo,
): Promise<number> {
  const [command, ...rest] = args;
  let tenant = "";
  const objectIds: string[] = [];
  const deliveryIds: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--tenant") tenant = rest[++i] ?? "";
    else if (arg === "--delivery") deliveryIds.push(rest[++i] ?? "");
    else objectIds.push(arg);
  }
  if ((command !== "list" && command !== "retry") || (command === "list" && objectIds.length + deliveryIds.length)) {
    io.err(USAGE);
    return 2;
  }
  try {
    if (command === "list") {
      const { notarizations } = await notary.listNotarizations({
        tenant,
        state: notaryV1.NotarizationState.DEAD,
        limit: 500,
      });
      for (const n of notarizations) {
        io.out(
          ["notarization", n.objectId, n.tenant, n.credentialId, n.batch?.batchId ?? "", n.attempts, n.lastError].join(
            "\t",
          ),
        );
      }
      const { deliveries } = await notary.listWebhookDeliveries({
        tenant,
        state: notaryV1.DeliveryState.DEAD,
        limit: 500,
      });
      for (const d of deliveries) {
        io.out(["delivery", d.deliveryId, d.tenant, d.eventType, d.url, d.attempts, d.lastError].join("\t"));
      }
      // On stderr, like the other empty lists: stdout stays the tab-separated rows only.
      if (notarizations.length + deliveries.length === 0) {
        io.err(`no dead letters${tenant ? ` of tenant ${tenant}` : ""}: no dead notarizations or webhook deliveries`);
      }
      return 0;
    }
    const result = await notary.retryDeadJobs({ tenant, objectIds, deliveryIds });
    io.out(
      `retried ${result.batches} batch(es) (${result.notarizations} notarization(s)) and ${result.webhookDeliveries} webhook delivery(ies)`,
    );
    return 0;
  } catch (error) {
    io.err(`dead-letters: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
