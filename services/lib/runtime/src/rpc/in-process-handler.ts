import type { DescMethodUnary } from "@bufbuild/protobuf";
import {
  appendHeaders,
  Code,
  ConnectError,
  type ConnectRouter,
  createContextValues,
  type Interceptor,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import {
  codeFromHttpStatus,
  codeToHttpStatus,
  contentTypeUnaryJson,
  errorFromJsonBytes,
  errorToJsonBytes,
  headerContentType,
  headerUnaryContentLength,
  trailerDemux,
  trailerMux,
} from "@connectrpc/connect/protocol-connect";
import { copyMessage } from "./message-copy.js";
import { CallAnswer, invokeUnary, unaryMethodsOf, unaryResponse } from "./unary-methods.js";

/**
 * The callee's half of an in-process call (in-process-transport.ts): the method's handler called
 * as a function behind the callee's server interceptors (metrics, trace context, credential check,
 * caller policy, error mapping), as Connect's handler runs them, minus the wire:
 * - the handler gets its own copy of the request and the caller its own copy of the answer
 *   (message-copy.ts: the declared fields, as protobuf binary would carry them), not bytes;
 * - the handler's context is the call's: its signal is the caller's call signal (aborted at the
 *   deadline with DeadlineExceeded, when the caller cancels, and when the call ends), its
 *   `timeoutMs()` counts down to the caller's deadline, its request header is the caller's (with
 *   the `connect-*` headers and the credential the client interceptors set), and its values are
 *   its own (the caller's never reach it). Its response header (`content-type: application/proto`)
 *   and trailer are made when first used: most handlers set none;
 * - a failure reaches the caller exactly as the Connect protocol's JSON error body and HTTP
 *   status would carry it (code, message, details, the handler's headers and the error's metadata),
 *   never the callee's own error object (no `cause`).
 * Attempts of a retried call share the call's signal.
 */

/** One call as the caller's innermost step hands it over. */
export interface InProcessCall {
  /** The caller's request, after its client interceptors. */
  req: UnaryRequest;
  /** When the caller stops waiting (ms since the epoch), if it has a deadline. */
  deadlineAt: number | undefined;
}

export type InProcessHandler = (call: InProcessCall) => Promise<UnaryResponse>;

/** The failure as the caller would read it from the Connect protocol's JSON error answer. */
function asReceived(e: unknown, answer: CallAnswer): ConnectError {
  const error =
    e instanceof ConnectError ? e : new ConnectError("internal error", Code.Internal, undefined, undefined, e);
  const header = answer.header;
  header.set(headerContentType, contentTypeUnaryJson);
  error.metadata.forEach((value, key) => {
    header.set(key, value);
  });
  const body = errorToJsonBytes(error, {});
  header.set(headerUnaryContentLength, body.byteLength.toString(10));
  const status = codeToHttpStatus(error.code);
  // The status's code, then the JSON body, with the header and trailer (sent as "trailer-" headers) as metadata.
  const muxed = trailerMux(header, answer.trailer);
  const [received, trailer] = trailerDemux(muxed);
  return errorFromJsonBytes(
    body,
    appendHeaders(received, trailer),
    new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status), muxed),
  );
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
  const outermostFirst = [...interceptors].reverse();
  return async ({ req, deadlineAt }) => {
    const spec = methods.get(req.method);
    if (!spec) throw new ConnectError(`no handler registered for ${req.url}`, Code.Unimplemented);
    const answer = new CallAnswer();
    let res: UnaryResponse;
    try {
      res = await invokeUnary(
        {
          spec,
          url: req.url,
          signal: req.signal,
          header: req.header,
          contextValues: createContextValues(),
          message: copyMessage(spec.method.input, req.message),
          deadlineAt,
        },
        answer,
        outermostFirst,
      );
    } catch (e) {
      throw asReceived(e, answer);
    }
    // The header and trailer the server interceptors answered with (the answer's, unless one replaced them).
    return unaryResponse(spec.method as DescMethodUnary, copyMessage(spec.method.output, res.message), res);
  };
}
