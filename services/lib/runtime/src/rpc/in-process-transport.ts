import {
  type ConnectRouter,
  createRouterTransport,
  type Interceptor,
  type Transport,
  type UnaryRequest,
} from "@connectrpc/connect";
import { raceSignal } from "./call-signal.js";
import { createInProcessHandler, type InProcessHandler } from "./in-process-handler.js";
import { deadlineOf, runUnaryCall } from "./unary-call.js";

/**
 * The transport of in-process internal calls (in-process.ts): the caller's client interceptors,
 * then the callee's handler called as a function behind its server interceptors
 * (in-process-handler.ts), with nothing of the wire between them.
 *
 * `createRouterTransport` joins them through Connect's universal HTTP client and handler: request
 * and response bodies become async iterables, each request is routed by URL and content type
 * through the negotiation of three protocols, headers are copied several times, every call ends
 * by aborting AbortControllers without a reason (for each of which Node builds an AbortError with
 * a stack trace), and each message is encoded to protobuf binary and decoded again on both sides.
 * What stays, as the Connect protocol client and handler do it:
 * - the client interceptors (trace context, retries, service credential, lost callee), then the
 *   server interceptors (metrics, trace context, credential check, caller policy, error mapping),
 *   in the same order on Connect's own request and response types, with the same request
 *   headers (`content-type`, `connect-protocol-version`, `connect-timeout-ms`, `user-agent`,
 *   `authorization`);
 * - each side its own copy of the request and the answer (declared fields only, as protobuf
 *   binary would carry them; message-copy.ts), so neither can change what the other holds;
 * - the deadline: the call's signal aborts with DeadlineExceeded when it passes and the caller
 *   stops waiting although the handler may run on; the handler's signal is that signal and its
 *   `timeoutMs()` counts down to the same deadline;
 * - failures reach the caller as the protocol's JSON error body and HTTP status would (code,
 *   message, details, metadata), and the handler's context values are its own.
 * The parity suite (services/lib/runtime/test/in-process-parity.test.ts) runs the same calls
 * both ways. Streaming methods (none today) take `createRouterTransport`.
 */

const BASE_URL = "https://in-memory";

export interface InProcessTransportOptions {
  /** The caller's interceptors and default deadline, as its network transport has them. */
  client: { interceptors: Interceptor[]; defaultTimeoutMs: number };
  /** The callee's server interceptors, as its internal server runs them. */
  server: { interceptors: Interceptor[] };
}

/** A transport calling the handlers `routes` registers in this process, through both sides' interceptors. */
export function createInProcessTransport(
  routes: (router: ConnectRouter) => void,
  options: InProcessTransportOptions,
): Transport {
  const router = createRouterTransport(routes, {
    transport: options.client,
    router: { interceptors: options.server.interceptors },
  });
  const handler: InProcessHandler | undefined = createInProcessHandler(routes, options.server.interceptors);
  if (!handler) return router;
  const outermostFirst = [...options.client.interceptors].reverse();

  return {
    unary: (async (method, signal, timeoutMs, header, message, contextValues) => {
      const deadline = deadlineOf(timeoutMs, options.client.defaultTimeoutMs);
      const deadlineAt = deadline === undefined ? undefined : Date.now() + deadline;
      // The innermost client step: the callee's handler, waited for until the call's signal aborts.
      let next = ((req: UnaryRequest) =>
        raceSignal(req.signal, handler({ req, deadlineAt }))) as Parameters<Interceptor>[0];
      for (const interceptor of outermostFirst) next = interceptor(next);
      return await runUnaryCall(next, { baseUrl: BASE_URL, method, signal, deadline, header, message, contextValues });
    }) as Transport["unary"],
    stream: (...args) => router.stream(...args),
  };
}
