import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  /** The request path: which target it was sent to. */
  target: string;
  eventId: string;
  eventType: string;
  body: { id?: string; type?: string };
}

/** A local webhook endpoint (every path a target) that answers 204 and records what it received. */
export interface WebhookReceiver {
  /** `host:port`, for OUTBOUND_ALLOW_HOSTS. */
  host: string;
  urlOf(target: string): string;
  received: ReceivedWebhook[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      received.push({
        target: request.url ?? "",
        eventId: String(request.headers["attesto-event-id"] ?? ""),
        eventType: String(request.headers["attesto-event-type"] ?? ""),
        body: JSON.parse(body) as ReceivedWebhook["body"],
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    urlOf: (target) => `http://${host}${target}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What went wrong with the deliveries of `events` events to `targets` (empty: each event reached each target once, id stable). */
export function deliveryProblems(received: ReceivedWebhook[], targets: string[], events: number): string[] {
  const problems: string[] = [];
  for (const delivery of received) {
    if (delivery.body.id !== delivery.eventId)
      problems.push(`event id header ${delivery.eventId} != body id ${delivery.body.id}`);
  }
  const idsOf = (target: string) =>
    received
      .filter((delivery) => delivery.target === target)
      .map((delivery) => delivery.eventId)
      .sort();
  for (const target of targets) {
    const ids = idsOf(target);
    if (ids.length !== events) problems.push(`${target}: ${ids.length} deliveries for ${events} events`);
    if (new Set(ids).size !== ids.length) problems.push(`${target}: an event delivered more than once`);
  }
  const first = JSON.stringify(idsOf(targets[0] ?? ""));
  for (const target of targets.slice(1)) {
    if (JSON.stringify(idsOf(target)) !== first) problems.push(`${target} received other events than ${targets[0]}`);
  }
  return problems;
}
