import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";

/**
 * A round-robin HTTP balancer in front of one service's replicas, as a Kubernetes Service or a
 * load balancer would be: every request goes to the next replica in turn, the Host header and
 * body unchanged. `served[i]` counts the requests replica `i` received.
 */
export interface Balancer {
  url: string;
  served: number[];
  /** Every request to replica `index` from now on (a session-affine balancer); `pin()` restores round robin. */
  pin(index?: number): void;
  close(): Promise<void>;
}

/** Headers of one connection only (RFC 9110 §7.6.1), which a proxy must not pass on. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "proxy-authenticate",
  "proxy-authorization",
]);

/**
 * `headers` without the hop-by-hop ones (and those `Connection` names). Passed on, a replica's
 * `Keep-Alive: timeout=72` would tell clients the balancer keeps idle connections that long; it
 * closes them after 5 s, and a client reusing one then fails with "other side closed".
 */
function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = String(headers.connection ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase());
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.includes(name)));
}

export async function startBalancer(options: { port: number; backends: number[] }): Promise<Balancer> {
  const agent = new Agent({ keepAlive: true });
  const served = options.backends.map(() => 0);
  let next = 0;
  let pinned: number | undefined;
  const server: Server = createServer((incoming, outgoing) => {
    const index = pinned ?? next;
    if (pinned === undefined) next = (next + 1) % options.backends.length;
    served[index] = (served[index] ?? 0) + 1;
    const upstream = httpRequest(
      {
        host: "127.0.0.1",
        port: options.backends[index],
        method: incoming.method,
        path: incoming.url,
        headers: endToEnd(incoming.headers),
        agent,
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, endToEnd(response.headers));
        response.pipe(outgoing);
      },
    );
    upstream.on("error", () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", resolve);
  });
  return {
    url: `http://localhost:${options.port}`,
    served,
    pin(index) {
      if (index !== undefined && !(index in options.backends)) throw new Error(`no replica ${index}`);
      pinned = index;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
