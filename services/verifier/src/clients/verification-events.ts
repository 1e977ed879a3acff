import type { notaryV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import type { VerificationEvents } from "../domain/ports.js";

/**
 * The scheduler's NotaryService.PublishVerificationEvent: the tenant's opt-in
 * `verification.completed` / `verification.failed` webhook. Best effort: a failure (scheduler
 * unreachable after the client's retries) is logged and never fails the wallet's submission; the
 * relying party still has the result endpoint.
 */
export function createVerificationEvents(
  client: Client<typeof notaryV1.NotaryService>,
  log: { warn(fields: object, message: string): void },
): VerificationEvents {
  return {
    async finished({ tenant, sessionId, verified, result }) {
      try {
        await client.publishVerificationEvent({ tenant, sessionId, verified, resultJson: JSON.stringify(result) });
      } catch (error) {
        log.warn(
          { tenant, session_id: sessionId, err: error instanceof Error ? error.message : String(error) },
          "verification webhook event not published",
        );
      }
    },
  };
}
