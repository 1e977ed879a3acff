import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { WebhookSender } from "../domain/ports.js";
import { type Lookup, resolveWebhookTarget } from "./webhook-target.js";

export interface HttpWebhookSenderOptions {
  /** Deadline of the whole request: DNS, connect, TLS, sending, response headers and body. */
  timeoutMs: number;
  allowPrivateTargets: boolean;
  lookup?: Lookup;
}

/**
 * POSTs webhooks with node:http(s), connecting only to the address the target check approved
 * (`lookup` pinned to it; TLS still verifies the certificate for the URL's host name). Redirects
 * are not followed (a 3xx is a failed attempt); the response body is read and discarded.
 */
export function createHttpWebhookSender(options: HttpWebhookSenderOptions): WebhookSender {
  return {
    async send(request) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), options.timeoutMs);
      const timedOut = () => new Error(`webhook request timed out after ${options.timeoutMs} ms`);
      try {
        const target = await Promise.race([
          resolveWebhookTarget(request.url, { allowPrivate: options.allowPrivateTargets, lookup: options.lookup }),
          new Promise<never>((_, reject) => controller.signal.addEventListener("abort", () => reject(timedOut()))),
        ]);
        const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
          if ((lookupOptions as { all?: boolean }).all) {
            (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
              { address: target.address, family: target.family },
            ]);
          } else {
            callback(null, target.address, target.family);
          }
        };
        const transport = target.url.protocol === "https:" ? https : http;
        return await new Promise<{ statusCode: number }>((resolve, reject) => {
          const outgoing = transport.request(
            target.url,
            {
              method: "POST",
              headers: { ...request.headers, "content-length": Buffer.byteLength(request.body) },
              lookup: pinned,
              agent: false,
              signal: controller.signal,
            },
            (response) => {
              response.on("error", (error) => reject(controller.signal.aborted ? timedOut() : error));
              response.on("end", () => resolve({ statusCode: response.statusCode ?? 0 }));
              response.resume();
            },
          );
          outgoing.on("error", (error) => reject(controller.signal.aborted ? timedOut() : error));
          outgoing.end(request.body);
        });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
