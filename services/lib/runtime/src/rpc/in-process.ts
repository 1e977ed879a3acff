import type { ConnectRouter, Interceptor, Transport } from "@connectrpc/connect";
import { createInProcessTransport } from "./in-process-transport.js";

/**
 * In-process internal calls: when a caller and its callee run in the same process (the all-in-one
 * launcher), a call need not cross a socket. The callee's internal server registers its routes and
 * its server interceptors here; a client whose base URL names that server on a loopback address
 * then calls it in memory (in-process-transport.ts) instead: the same Connect protocol, serialization,
 * client interceptors (trace context, retries, service credential), deadline, and the same server
 * interceptors (credential verification, caller policy, error mapping, metrics) as over h2c, minus
 * the HTTP/2 framing, the loopback writes and Connect's HTTP model between client and handler. Off unless a launcher turns it on
 * (`enableInProcessRpc`): separate processes, and tests that start services themselves, always go
 * over the network. A server that closes unregisters, so later calls go to the network (and fail
 * as they would: Unavailable).
 */

interface LocalServer {
  routes: (router: ConnectRouter) => void;
  interceptors: Interceptor[];
}

let enabled = false;
/** "host:port" -> the server listening there in this process. */
const servers = new Map<string, LocalServer>();
const LOOPBACK = ["localhost", "127.0.0.1", "[::1]", "::1"];

/** Turns in-process calls on for this process (the all-in-one launcher does, before starting services). */
export function enableInProcessRpc(on = true): void {
  enabled = on;
}

const keyOf = (host: string, port: number | string) => `${host.toLowerCase()}:${port}`;

/**
 * Registers an internal server listening at `host:port` in this process; answers the function
 * that unregisters it. A server on a wildcard address is reachable as any loopback name, never as
 * another host's name (a URL naming another machine must reach that machine).
 */
export function registerLocalServer(host: string, port: number, server: LocalServer): () => void {
  const hosts = new Set([host, ...(host === "0.0.0.0" || host === "::" || LOOPBACK.includes(host) ? LOOPBACK : [])]);
  const keys = [...hosts].map((name) => keyOf(name, port));
  for (const key of keys) servers.set(key, server);
  return () => {
    for (const key of keys) if (servers.get(key) === server) servers.delete(key);
  };
}

/** The registry key a base URL could be served under in this process: loopback h2c URLs only. */
function localKeyOf(baseUrl: string): string | undefined {
  if (!URL.canParse(baseUrl)) return undefined;
  const url = new URL(baseUrl);
  if (url.protocol !== "http:" || (url.pathname !== "/" && url.pathname !== "")) return undefined;
  if (!LOOPBACK.includes(url.hostname.toLowerCase())) return undefined;
  return keyOf(url.hostname, url.port || "80");
}

/**
 * A transport that, per call, takes the in-process route to `baseUrl`'s server when it runs in
 * this process, and `network` otherwise. `clientOptions` are the client side's interceptors and
 * deadline, applied on both routes.
 */
export function localOrNetworkTransport(
  baseUrl: string,
  network: Transport,
  clientOptions: { interceptors: Interceptor[]; defaultTimeoutMs: number },
): Transport {
  let built: { server: LocalServer; transport: Transport } | undefined;
  // The URL is parsed once; whether its server runs here is looked up on every call.
  const localKey = localKeyOf(baseUrl);
  const route = (): Transport => {
    const server = enabled && localKey !== undefined ? servers.get(localKey) : undefined;
    if (!server) return network;
    if (built?.server !== server) {
      built = {
        server,
        transport: createInProcessTransport(server.routes, {
          client: clientOptions,
          server: { interceptors: server.interceptors },
        }),
      };
    }
    return built.transport;
  };
  return {
    unary: (...args) => route().unary(...args),
    stream: (...args) => route().stream(...args),
  };
}
