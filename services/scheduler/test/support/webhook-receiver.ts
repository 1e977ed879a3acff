import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** What the receiver does with the next request: answer a status, or never answer. */
export type Behaviour = number | "hang";

/** A local HTTP endpoint that records what it receives; answers follow `script`, then `fallback`. */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  script: Behaviour[] = [];
  fallback: Behaviour = 200;
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      this.received.push({
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      });
      const behaviour = this.script.shift() ?? this.fallback;
      if (behaviour === "hang") return;
      response.writeHead(behaviour, { "content-type": "text/plain" });
      response.end("ok");
    });
  });
  url = "";

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
