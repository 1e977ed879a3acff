import type { SealedColumn } from "@attesto/store";
import { webhookSecretContext } from "../domain/set-webhooks.js";

/**
 * The trust registry's envelopes besides custody keys (rewrapped under the current KEK at start-up
 * and by RewrapKeys, which also rewraps custody_keys).
 */
export const sealedColumns: SealedColumn[] = [
  { table: "tenant_webhooks", key: "tenant", column: "secret_envelope", context: webhookSecretContext },
];
