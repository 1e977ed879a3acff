import http2 from "node:http2";
import { type DescMethodUnary, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, createContextValues, type Interceptor } from "@connectrpc/connect";
import {
  codeToHttpStatus,
  contentTypeUnaryJson,
  contentTypeUnaryProto,
  errorToJsonBytes,
  headerContentType,
  headerUnaryContentLength,
  trailerMux,
} from "@connectrpc/connect/protocol-connect";
import { callSignal } from "./call-signal.js";
import { CallAnswer, invokeUnary, type UnarySpec, unaryMethodsOf } from "./unary-methods.js";

/**
 * The internal server's own path for the calls its h2c clients make (h2c-transport.ts): Connect
 * protocol, unary, binary, uncompressed POSTs. Such a request is answered here, with the handler
 * called as a function behind the same server interceptors (unary-methods.ts) and the same answer
 * Connect's handler would write (status, `content-type`, the handler's headers and `trailer-`
 * headers, `content-length`, the message or the protocol's JSON error), without Connect's
 * universal handler in between (its request and body as async iterables, Web header copies, an
 * AbortController aborted without a reason at the end of every call). Everything else (JSON,
 * gRPC, gRPC-web, compression, GET, HTTP/1.1, unknown paths) is left to Connect's handler.
 *
 * The handler's context is as Connect makes it: its signal aborts at the caller's deadline
 * (`connect-timeout-ms`, DeadlineExceeded), when the caller resets the stream (by its code), and
 * when the call ends; `timeoutMs()` counts down to that deadline; its values are the request's own.
 */
export type UnaryProtoHandler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean;

/** How much earlier than ours a caller's deadline may pass (its timer starts before the request arrives). */
const DEADLINE_SLACK_MS = 50;

/** Connect's own timeout syntax: at most ten digits of milliseconds. */
const TIMEOUT = /^\d{1,10}$/;

/** A reset stream's code as the reason the handler's signal aborts with (Connect's mapping, in short). */
function resetReason(rstCode: number): ConnectError | undefined {
  if (rstCode === http2.constants.NGHTTP2_NO_ERROR) return undefined;
  // CANCEL: the caller gave up (its deadline, its own cancellation).
  const code = rstCode === http2.constants.NGHTTP2_CANCEL ? Code.Canceled : Code.Internal;
  return new ConnectError(`http/2 stream closed with error code 0x${rstCode.toString(16)}`, code);
}

/** The request body, whole. */
function readBody(stream: http2.ServerHttp2Stream): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    stream.once("close", () => reject(resetReason(stream.rstCode) ?? new ConnectError("stream closed", Code.Canceled)));
  });
}

/**
 * The answer, in one write: the header and the body, whose DATA frame ends the stream (Node's
 * compatibility response would end it with a frame of its own, one more write and one more
 * wake-up of the caller per call).
 */
function write(stream: http2.ServerHttp2Stream, status: number, header: Headers, body: Uint8Array): void {
  if (stream.destroyed || stream.closed) return;
  const headers: http2.OutgoingHttpHeaders = { ":status": status };
  header.forEach((value, key) => {
    headers[key] = value;
  });
  headers[headerUnaryContentLength] = body.byteLength.toString(10);
  stream.respond(headers);
  stream.end(body);
}

/** The request's headers as Web headers, pseudo-headers left out (as Connect's adapter makes them). */
function headersOf(incoming: http2.IncomingHttpHeaders): Headers {
  const header = new Headers();
  for (const key in incoming) {
    if (key.charCodeAt(0) === 58 /* ":" */) continue;
    const value = incoming[key];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) header.append(key, item);
    else header.append(key, value);
  }
  return header;
}

async function serve(
  spec: UnarySpec,
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  outermostFirst: Interceptor[],
): Promise<void> {
  const method = spec.method as DescMethodUnary;
  const timeout = headers["connect-timeout-ms"] as string | undefined;
  const timeoutMs = timeout === undefined ? undefined : Number(timeout);
  const deadlineAt = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  const call = callSignal(undefined, timeoutMs);
  let answered = false;
  // The caller reset the stream (gave up) before the answer: the handler's signal says so. A
  // caller's deadline timer starts before its request reaches us, so a CANCEL this close to our
  // deadline is the caller's deadline: our own timer aborts the signal with DeadlineExceeded.
  const onClose = () => {
    if (answered) return;
    const nearDeadline = deadlineAt !== undefined && deadlineAt - Date.now() <= DEADLINE_SLACK_MS;
    if (nearDeadline && stream.rstCode === http2.constants.NGHTTP2_CANCEL) return;
    call.fail(resetReason(stream.rstCode)).catch(() => undefined);
  };
  stream.once("close", onClose);
  const answer = new CallAnswer();
  let status = 200;
  let header: Headers;
  let body: Uint8Array;
  try {
    const bytes = await readBody(stream);
    let message: ReturnType<typeof fromBinary>;
    try {
      message = fromBinary(method.input, bytes);
    } catch (e) {
      throw new ConnectError(`parse binary: ${e instanceof Error ? e.message : String(e)}`, Code.Internal);
    }
    const response = await invokeUnary(
      {
        spec,
        url: `http://${headers[":authority"] ?? ""}${headers[":path"]}`,
        signal: call.signal,
        header: headersOf(headers),
        contextValues: createContextValues(),
        message,
        deadlineAt,
      },
      answer,
      outermostFirst,
    );
    try {
      body = toBinary(method.output, response.message);
    } catch (e) {
      throw new ConnectError(`serialize binary: ${e instanceof Error ? e.message : String(e)}`, Code.Internal);
    }
    header = trailerMux(response.header, response.trailer);
  } catch (e) {
    const error =
      e instanceof ConnectError ? e : new ConnectError("internal error", Code.Internal, undefined, undefined, e);
    status = codeToHttpStatus(error.code);
    answer.header.set(headerContentType, contentTypeUnaryJson);
    error.metadata.forEach((value, key) => {
      answer.header.set(key, value);
    });
    body = errorToJsonBytes(error, {});
    header = trailerMux(answer.header, answer.trailer);
  } finally {
    answered = true;
    stream.off("close", onClose);
    call.done();
  }
  write(stream, status, header, body);
}

/**
 * The handler described above for the unary methods `routes` registers, behind `interceptors`:
 * given a new stream, it answers `true` when it took it, `false` when Connect's handler should.
 * Undefined when the routes need Connect's own router (handler options).
 */
export function createUnaryProtoHandler(
  routes: (router: ConnectRouter) => void,
  interceptors: Interceptor[],
): UnaryProtoHandler | undefined {
  const methods = unaryMethodsOf(routes);
  if (!methods) return undefined;
  const byPath = new Map<string, UnarySpec>();
  for (const spec of methods.values()) byPath.set(`/${spec.method.parent.typeName}/${spec.method.name}`, spec);
  const outermostFirst = [...interceptors].reverse();
  return (stream, headers) => {
    if (headers[":method"] !== "POST") return false;
    if (headers["content-type"] !== contentTypeUnaryProto || headers["connect-protocol-version"] !== "1") return false;
    const encoding = headers["content-encoding"];
    if (encoding !== undefined && encoding !== "identity") return false;
    const timeout = headers["connect-timeout-ms"];
    if (timeout !== undefined && (typeof timeout !== "string" || !TIMEOUT.test(timeout))) return false;
    const spec = byPath.get(headers[":path"] ?? "");
    if (!spec) return false;
    // A stream's failure (the connection dropped) is its close; without a listener it would throw.
    stream.on("error", () => undefined);
    serve(spec, stream, headers, outermostFirst).catch(() => {
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    });
    return true;
  };
}
