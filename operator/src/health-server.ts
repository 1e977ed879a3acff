import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The operator's own HTTP port: `/healthz` (the process serves), `/readyz` (the informers have
 * synced: a follower is ready too, so that it can take over), `/metrics` (Prometheus).
 */
export async function startHealthServer(options: {
  host: string;
  port: number;
  registry: Registry;
  ready(): boolean;
  /** Extra facts for /readyz bodies (e.g. leadership). */
  describe?(): Record<string, unknown>;
}): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (path === "/healthz") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "ok" }));
      return;
    }
    if (path === "/readyz") {
      const ready = options.ready();
      res
        .writeHead(ready ? 200 : 503, { "content-type": "application/json" })
        .end(JSON.stringify({ status: ready ? "ok" : "not_ready", ...options.describe?.() }));
      return;
    }
    if (path === "/metrics") {
      options.registry.metrics().then(
        (body) => res.writeHead(200, { "content-type": options.registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not_found" }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host === "0.0.0.0" ? "127.0.0.1" : options.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
