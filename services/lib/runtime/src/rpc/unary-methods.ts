import { create, type DescMethod, type DescMethodUnary } from "@bufbuild/protobuf";
import {
  type ConnectRouter,
  type ContextValues,
  createMethodImplSpec,
  createServiceImplSpec,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { contentTypeUnaryProto, headerContentType } from "@connectrpc/connect/protocol-connect";

/**
 * The unary handlers of an internal server called as functions behind its server interceptors,
 * as Connect's handler runs them: the callee's half of both the in-process route
 * (in-process-handler.ts) and the h2c server's own unary path (h2c-unary-handler.ts).
 */

export type UnarySpec = Extract<MethodImplSpec, { kind: "unary" }>;

/**
 * The unary methods `routes` registers, as Connect's router would register them; undefined when a
 * registration passes handler options (none does today), which only Connect's own router applies.
 */
export function unaryMethodsOf(routes: (router: ConnectRouter) => void): Map<DescMethod, UnarySpec> | undefined {
  const unary = new Map<DescMethod, UnarySpec>();
  let plain = true;
  const add = (spec: MethodImplSpec) => {
    if (spec.kind === "unary") unary.set(spec.method, spec);
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

/** The response header and trailer of one call, made when first used. */
export class CallAnswer {
  private madeHeader?: Headers;
  private madeTrailer?: Headers;
  get header(): Headers {
    this.madeHeader ??= new Headers({ [headerContentType]: contentTypeUnaryProto });
    return this.madeHeader;
  }
  get trailer(): Headers {
    this.madeTrailer ??= new Headers();
    return this.madeTrailer;
  }
}

/**
 * The handler's context: the request's method, signal, header and values, the call's deadline and
 * answer. Object literals with own getters, so that a spread copy (`{ ...context }`) keeps them.
 */
function handlerContext(req: UnaryRequest, answer: CallAnswer, deadlineAt: number | undefined): HandlerContext {
  return {
    method: req.method,
    service: req.service,
    requestMethod: "POST",
    protocolName: "connect",
    url: req.url,
    signal: req.signal,
    requestHeader: req.header,
    values: req.contextValues,
    timeoutMs: () => (deadlineAt === undefined ? undefined : deadlineAt - Date.now()),
    get responseHeader() {
      return answer.header;
    },
    get responseTrailer() {
      return answer.trailer;
    },
  };
}

/** A unary response whose header and trailer are `headers`' (made when first read). */
export function unaryResponse(
  method: DescMethodUnary,
  message: UnaryResponse["message"],
  headers: Pick<UnaryResponse, "header" | "trailer">,
): UnaryResponse {
  return {
    stream: false,
    service: method.parent,
    method,
    message,
    get header() {
      return headers.header;
    },
    get trailer() {
      return headers.trailer;
    },
  };
}

/** What one call hands the server side: the request as it arrived, when its caller stops waiting. */
export interface ServerCall {
  spec: UnarySpec;
  url: string;
  signal: AbortSignal;
  header: Headers;
  contextValues: ContextValues;
  /** The request message (the handler's own). */
  message: UnaryRequest["message"];
  /** When the caller stops waiting (ms since the epoch), if it has a deadline. */
  deadlineAt: number | undefined;
}

/**
 * Runs `call` through `outermostFirst` (the server interceptors, reversed) to its handler; answers
 * what the outermost interceptor answered. Failures are thrown as they come out of the interceptors.
 */
export function invokeUnary(
  call: ServerCall,
  answer: CallAnswer,
  outermostFirst: Interceptor[],
): Promise<UnaryResponse> {
  const method = call.spec.method as DescMethodUnary;
  let next = (async (request: UnaryRequest) => {
    const output = await call.spec.impl(request.message, handlerContext(request, answer, call.deadlineAt));
    return unaryResponse(method, create(method.output, output), answer);
  }) as Parameters<Interceptor>[0];
  for (const interceptor of outermostFirst) next = interceptor(next);
  return next({
    stream: false,
    service: method.parent,
    method,
    requestMethod: "POST",
    url: call.url,
    signal: call.signal,
    header: call.header,
    contextValues: call.contextValues,
    message: call.message,
  } as UnaryRequest) as Promise<UnaryResponse>;
}
