import type { DescMessage, DescMethod } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  createHandlerContext,
  createMethodImplSpec,
  createServiceImplSpec,
  type Interceptor,
  type MethodImplSpec,
  type UnaryRequest,
} from "@connectrpc/connect";
import {
  createMethodSerializationLookup,
  createMethodUrl,
  invokeUnaryImplementation,
  type MethodSerializationLookup,
} from "@connectrpc/connect/protocol";
import {
  codeToHttpStatus,
  contentTypeUnaryJson,
  contentTypeUnaryProto,
  errorToJsonBytes,
  headerContentType,
  headerTimeout,
  headerUnaryContentLength,
  parseTimeout,
} from "@connectrpc/connect/protocol-connect";

/**
 * The server half of an in-process call (in-process-transport.ts): what Connect's Connect-protocol
 * unary handler does with a binary request (its `createHandlerContext`, deadline from
 * `connect-timeout-ms`, `invokeUnaryImplementation` with the server interceptors, errors as the
 * protocol's JSON body and HTTP status), given the request bytes instead of an HTTP body stream
 * routed through protocol negotiation. One difference: the handler's signal is aborted at the end
 * of the call with one shared AbortError, not a fresh one per call (Node builds each with a stack
 * trace: a few percent of an in-process call's CPU). Nothing can tell them apart but identity.
 */

/** Node's reason for an abort without one, made once. */
export const CALL_ENDED = new DOMException("This operation was aborted", "AbortError");

/** The router transport's and the Node adapter's limits are far above any internal message: none here. */
const LIMITS = { readMaxBytes: Number.MAX_SAFE_INTEGER, writeMaxBytes: Number.MAX_SAFE_INTEGER };

/** A serialized answer, as the HTTP response would carry it (trailers apart). */
export interface InProcessAnswer {
  status: number;
  header: Headers;
  trailer: Headers;
  body: Uint8Array;
}

export type InProcessHandler = (req: UnaryRequest, body: Uint8Array) => Promise<InProcessAnswer>;

type UnarySpec = Extract<MethodImplSpec, { kind: "unary" }>;

/** Binary serialization of a method's messages (Connect's, with its error wrapping), made once per method. */
export function serializationCache(): (method: DescMethod) => MethodSerializationLookup<DescMessage, DescMessage> {
  const lookups = new Map<DescMethod, MethodSerializationLookup<DescMessage, DescMessage>>();
  return (method) => {
    let lookup = lookups.get(method);
    if (!lookup) {
      lookup = createMethodSerializationLookup(method, undefined, undefined, LIMITS);
      lookups.set(method, lookup);
    }
    return lookup;
  };
}

/**
 * The unary methods `routes` registers, by request path (`/package.Service/Method`), as
 * Connect's router would register them; undefined when a registration passes handler options
 * (none does today), which only Connect's own router applies.
 */
function unaryMethodsOf(routes: (router: ConnectRouter) => void): Map<string, UnarySpec> | undefined {
  const unary = new Map<string, UnarySpec>();
  let plain = true;
  const add = (spec: MethodImplSpec) => {
    if (spec.kind === "unary") unary.set(createMethodUrl("/", spec.method), spec);
  };
  const router: ConnectRouter = {
    handlers: [],
    service(service, implementation, options) {
      if (options) plain = false;
      for (const spec of Object.values(createServiceImplSpec(service, implementation).methods)) add(spec);
      return router;
    },
    rpc(method, impl, options) {
      if (options) plain = false;
      add(createMethodImplSpec(method, impl));
      return router;
    },
  };
  routes(router);
  return plain ? unary : undefined;
}

/**
 * The handler of the unary methods `routes` registers, behind `interceptors`; undefined when the
 * routes need Connect's own router (handler options).
 */
export function createInProcessHandler(
  routes: (router: ConnectRouter) => void,
  interceptors: Interceptor[],
): InProcessHandler | undefined {
  const methods = unaryMethodsOf(routes);
  if (!methods) return undefined;
  const serializationOf = serializationCache();
  return async (req, body) => {
    const path = new URL(req.url).pathname;
    const spec = methods.get(path);
    if (!spec) throw new ConnectError(`RouterHttpClient: no handler registered for ${path}`, Code.Unimplemented);
    const serialization = serializationOf(spec.method);
    const timeout = parseTimeout(req.header.get(headerTimeout), Number.MAX_SAFE_INTEGER);
    const context = createHandlerContext({
      ...spec,
      service: spec.method.parent,
      requestMethod: req.requestMethod,
      protocolName: "connect",
      timeoutMs: timeout.timeoutMs,
      requestSignal: req.signal,
      requestHeader: req.header,
      url: req.url,
      responseHeader: { [headerContentType]: contentTypeUnaryProto },
    });
    let status = 200;
    let answer: Uint8Array;
    try {
      if (timeout.error) throw timeout.error;
      const input = serialization.getI(true).parse(body);
      const output = await invokeUnaryImplementation(spec, context, input, interceptors);
      answer = serialization.getO(true).serialize(output);
    } catch (e) {
      context.abort(e);
      const error =
        e instanceof ConnectError ? e : new ConnectError("internal error", Code.Internal, undefined, undefined, e);
      status = codeToHttpStatus(error.code);
      context.responseHeader.set(headerContentType, contentTypeUnaryJson);
      error.metadata.forEach((value, key) => {
        context.responseHeader.set(key, value);
      });
      answer = errorToJsonBytes(error, {});
    } finally {
      context.abort(CALL_ENDED);
    }
    context.responseHeader.set(headerUnaryContentLength, answer.byteLength.toString(10));
    return { status, header: context.responseHeader, trailer: context.responseTrailer, body: answer };
  };
}
