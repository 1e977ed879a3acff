import { type OutboundGuard, OutboundRequestError } from "@attesto/runtime/http";
import { TargetRefusedError } from "../domain/deliver-webhook.js";
import type { WebhookSender } from "../domain/ports.js";

/**
 * POSTs webhooks through the runtime's outbound request guard: the target is resolved at delivery
 * time and the request connects only to the addresses it checked (so DNS rebinding cannot reach an
 * internal address); loopback, private, link-local and other internal targets are refused unless
 * allowed; https only unless OUTBOUND_ALLOW_HTTP. Redirects are not followed (a 3xx is a failed
 * attempt); the response body is read and dropped. What the attempt log says is deliberately
 * coarse (refused, timed out, not reachable): the guard logs the network details.
 */
export function createHttpWebhookSender(guard: OutboundGuard, options: { timeoutMs: number }): WebhookSender {
  return {
    async send(request) {
      const problem = guard.checkUrl(request.url);
      if (problem) throw new TargetRefusedError(`webhook URL ${problem}`);
      try {
        const response = await guard.request(request.url, {
          method: "POST",
          headers: request.headers,
          body: request.body,
          timeoutMs: options.timeoutMs,
          discardBody: true,
        });
        return { statusCode: response.status };
      } catch (error) {
        if (!(error instanceof OutboundRequestError)) throw error;
        if (error.failure === "refused") {
          throw new TargetRefusedError("webhook target resolves to a non-public address (not allowed)");
        }
        if (error.failure === "timeout") throw new Error(`webhook request timed out after ${options.timeoutMs} ms`);
        throw new Error("webhook endpoint could not be reached");
      }
    },
  };
}
