import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { Code, ConnectError, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { FastifyBaseLogger } from "fastify";
import type { Registry } from "prom-client";
import { callerKey, callerPolicyInterceptor } from "./caller-policy.js";
import { toConnectError } from "./error-mapping.js";
import { createUnaryProtoHandler } from "./h2c-unary-handler.js";
import { registerLocalServer } from "./in-process.js";
import { rpcMetricsInterceptor } from "./rpc-metrics.js";
import type { ServiceCredentialVerifier } from "./service-credential.js";
import { traceServerInterceptor } from "./trace-context.js";

export interface InternalServerOptions {
  service: string;
  version: string;
  host: string;
  port: number;
  routes: (router: ConnectRouter) => void;
  verifier: ServiceCredentialVerifier;
  metrics?: Registry;
  logger: FastifyBaseLogger;
  /**
   * Tests: answer every call with Connect's own handler, also the h2c clients' unary calls
   * (h2c-unary-handler.ts) — the parity suite runs its calls both ways.
   */
  connectHandlerOnly?: boolean;
}

export interface InternalServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Continues the caller's trace, rejects calls without a valid service credential
 * (UNAUTHENTICATED) and calls the caller policy does not allow (PERMISSION_DENIED), and turns
 * handler errors into Connect errors. `service` names the callee on its spans.
 */
export function serverInterceptors(
  verifier: ServiceCredentialVerifier,
  logger: FastifyBaseLogger,
  service = "internal",
): Interceptor[] {
  const authenticate: Interceptor = (next) => async (req) => {
    const header = req.header.get("authorization") ?? "";
    const token = header.startsWith("Bearer ") ? header.slice(7) : "";
    if (!token) throw new ConnectError("service credential required", Code.Unauthenticated);
    try {
      req.contextValues.set(callerKey, await verifier.verify(token));
    } catch {
      throw new ConnectError("invalid service credential", Code.Unauthenticated);
    }
    return next(req);
  };
  const mapErrors: Interceptor = (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      const connectError = toConnectError(error);
      if (connectError.code === Code.Internal) logger.error({ err: error, rpc: req.url }, "rpc failed");
      throw connectError;
    }
  };
  return [traceServerInterceptor(service), authenticate, callerPolicyInterceptor(), mapErrors];
}

/**
 * The internal port: Connect, gRPC and gRPC-web on one listener, over HTTP/1.1 and cleartext HTTP/2
 * (h2c, told apart by the connection preface), plus `/metrics` and `/health`. Never exposed publicly.
 */
export async function startInternalServer(options: InternalServerOptions): Promise<InternalServer> {
  const { service, version, metrics } = options;
  const interceptors = [
    ...(metrics ? [rpcMetricsInterceptor(metrics)] : []),
    ...serverInterceptors(options.verifier, options.logger, service),
  ];
  const handler = connectNodeAdapter({
    routes: options.routes,
    interceptors,
    fallback: (req, res) => {
      const path = (req.url ?? "").split("?")[0];
      if (req.method === "GET" && path === "/health") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ status: "ok", service, version }));
      } else if (req.method === "GET" && path === "/metrics" && metrics) {
        metrics
          .metrics()
          .then((text) => {
            res.writeHead(200, { "content-type": metrics.contentType });
            res.end(text);
          })
          .catch(() => {
            res.writeHead(500);
            res.end();
          });
      } else {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "not_found", message: "Not found" }));
      }
    },
  });
  const h1 = http.createServer(handler);
  // The h2c clients' calls (Connect, unary, binary) are answered on the stream itself, without
  // Connect's universal handler or Node's compatibility request and response; every other stream
  // goes to Connect's handler through a server that is never listened on (`h2Compat`), which makes them.
  const unary = options.connectHandlerOnly ? undefined : createUnaryProtoHandler(options.routes, interceptors);
  const h2Compat = http2.createServer({}, handler);
  let h2: net.Server = h2Compat;
  if (unary) {
    const streams = http2.createServer({});
    streams.on(
      "stream",
      (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, flags: number, rawHeaders: string[]) => {
        if (!unary(stream, headers)) h2Compat.emit("stream", stream, headers, flags, rawHeaders);
      },
    );
    h2 = streams;
  }
  const sockets = new Set<net.Socket>();
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.once("data", (chunk) => {
      socket.pause();
      socket.unshift(chunk);
      // Every HTTP/2 connection opens with the "PRI * HTTP/2.0" preface.
      (chunk.subarray(0, 3).toString("latin1") === "PRI" ? h2 : h1).emit("connection", socket);
      process.nextTick(() => socket.resume());
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(options.port, options.host, () => resolve());
  });
  const address = listener.address() as net.AddressInfo;
  const host = options.host === "0.0.0.0" || options.host === "::" ? "localhost" : options.host;
  const unregister = registerLocalServer(options.host, address.port, { routes: options.routes, interceptors });
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        unregister();
        listener.close(() => resolve());
        h1.closeIdleConnections();
        for (const socket of sockets) socket.end();
        setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, 2000).unref();
      }),
  };
}
