import { create, type DescMessage, type DescMethodUnary, type MessageInitShape } from "@bufbuild/protobuf";
import {
  type ContextValues,
  createContextValues,
  type Interceptor,
  type Transport,
  type UnaryRequest,
} from "@connectrpc/connect";
import { createMethodUrl } from "@connectrpc/connect/protocol";
import { requestHeaderWithCompression } from "@connectrpc/connect/protocol-connect";
import { callSignal } from "./call-signal.js";

/** The call's deadline in ms as Connect's transports read `timeoutMs`: unset → the default, ≤ 0 → none. */
export const deadlineOf = (timeoutMs: number | undefined, defaultTimeoutMs: number): number | undefined =>
  timeoutMs === undefined ? defaultTimeoutMs : timeoutMs <= 0 ? undefined : timeoutMs;

/**
 * One unary call through `next` (the caller's interceptors, innermost step included), with the
 * request Connect's own transport makes: the Connect protocol's request headers with the
 * deadline, a full message of the input type (`create` leaves one as it is), and the call's signal
 * (`callSignal`: the deadline, the caller's abort, ended with the call). Shared by the in-process
 * and the h2c transports, so both hand the interceptors the same request.
 */
export function runUnaryCall<I extends DescMessage>(
  next: Parameters<Interceptor>[0],
  call: {
    baseUrl: string;
    method: DescMethodUnary<I>;
    signal: AbortSignal | undefined;
    deadline: number | undefined;
    header: Parameters<Transport["unary"]>[3];
    message: MessageInitShape<I>;
    contextValues: ContextValues | undefined;
  },
) {
  const signal = callSignal(call.signal, call.deadline);
  return next({
    stream: false,
    service: call.method.parent,
    method: call.method as DescMethodUnary,
    requestMethod: "POST",
    url: createMethodUrl(call.baseUrl, call.method),
    header: requestHeaderWithCompression(call.method.methodKind, true, call.deadline, call.header, [], null, true),
    contextValues: call.contextValues ?? createContextValues(),
    message: create(call.method.input, call.message),
    signal: signal.signal,
  } as UnaryRequest).then((res) => {
    signal.done();
    return res;
  }, signal.fail);
}
