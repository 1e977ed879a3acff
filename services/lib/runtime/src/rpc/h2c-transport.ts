import http2 from "node:http2";
import { type DescMethodUnary, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  appendHeaders,
  Code,
  ConnectError,
  type Interceptor,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { getAbortSignalReason } from "@connectrpc/connect/protocol";
import {
  errorFromJsonBytes,
  trailerDemux,
  validateResponseWithCompression,
} from "@connectrpc/connect/protocol-connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { H2cSession } from "./h2c-session.js";
import { deadlineOf, runUnaryCall } from "./unary-call.js";

/**
 * The network transport of internal unary calls: the Connect protocol (binary, unary POST) over
 * one cleartext HTTP/2 connection per callee, written directly on node:http2. It speaks to the
 * same internal servers, with the same interceptors, request headers, deadline and answers as
 * Connect's own Node transport (`createConnectTransport`, which it replaces for unary calls), but
 * without the per-call machinery that is generic there and idle here: the universal HTTP client's
 * async-iterable bodies and sentinels (a ConnectError with a stack trace made at the end of every
 * successful call), AbortControllers aborted without a reason at the end of each call (an
 * AbortError with a stack trace each), header copies between Web and Node forms, and compression
 * negotiation (internal messages are small; the in-process route asks for none either).
 * Streaming methods (none today) go to Connect's transport.
 *
 * Failures reach the caller as they do through Connect's transport: an answer's error as the
 * protocol's JSON error (code, message, details, headers as metadata), a reset stream by its
 * HTTP/2 code (CANCEL: Canceled, which `lostCalleeInterceptor` calls Unavailable), an unreachable
 * callee as Unavailable, a dropped connection as Aborted. The parity suite
 * (test/in-process-parity.test.ts) and test/rpc.test.ts run the same calls through it.
 */
export interface H2cTransportOptions {
  baseUrl: string;
  interceptors: Interceptor[];
  defaultTimeoutMs: number;
}

/** Node's error codes of a callee that cannot be reached, and of a connection that dropped (as Connect maps them). */
const UNREACHABLE = new Set(["ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED"]);
const DROPPED = new Set(["ERR_STREAM_DESTROYED", "ERR_HTTP2_INVALID_STREAM", "ECONNRESET"]);

/** A node:http2 failure as a ConnectError, by the codes in its cause chain (Connect's mapping). */
function connectErrorOf(reason: unknown): ConnectError {
  if (reason instanceof ConnectError) return reason;
  let code = Code.Internal;
  const seen = new Set<unknown>();
  for (let error = reason; error instanceof Error && !seen.has(error); error = error.cause) {
    seen.add(error);
    const nodeCode = (error as { code?: unknown }).code;
    if (typeof nodeCode !== "string") continue;
    if (nodeCode === "ERR_STREAM_WRITE_AFTER_END" || DROPPED.has(nodeCode)) code = Code.Aborted;
    else if (UNREACHABLE.has(nodeCode) && code === Code.Internal) code = Code.Unavailable;
  }
  const error = ConnectError.from(reason, code);
  if (error !== reason) error.cause = reason;
  return error;
}

/** A stream reset by the callee, by its HTTP/2 code (Connect's mapping); undefined for NO_ERROR. */
function resetError(rstCode: number): ConnectError | undefined {
  const c = http2.constants;
  const message = `http/2 stream closed with error code 0x${rstCode.toString(16)}`;
  switch (rstCode) {
    case c.NGHTTP2_NO_ERROR:
      return undefined;
    case c.NGHTTP2_REFUSED_STREAM:
      return new ConnectError(message, Code.Unavailable);
    case c.NGHTTP2_CANCEL:
      return new ConnectError(message, Code.Canceled);
    case c.NGHTTP2_ENHANCE_YOUR_CALM:
      return new ConnectError(message, Code.ResourceExhausted);
    case c.NGHTTP2_INADEQUATE_SECURITY:
    case c.NGHTTP2_HTTP_1_1_REQUIRED:
      return new ConnectError(message, Code.PermissionDenied);
    default:
      return new ConnectError(message, Code.Internal);
  }
}

/** What came back for one request: the status, the header and the whole body. */
interface Answer {
  status: number;
  header: Headers;
  body: Uint8Array;
}

/** The HTTP/2 request header of `req` (pseudo-headers first, then the request's own). */
function requestHeadersOf(req: UnaryRequest, path: string): http2.OutgoingHttpHeaders {
  const headers: http2.OutgoingHttpHeaders = { ":method": "POST", ":path": path };
  req.header.forEach((value, key) => {
    headers[key] = value;
  });
  return headers;
}

function responseHeaderOf(incoming: http2.IncomingHttpHeaders): Headers {
  const header = new Headers();
  for (const [key, value] of Object.entries(incoming)) {
    if (key.startsWith(":") || value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) header.append(key, item);
    else header.set(key, String(value));
  }
  return header;
}

/** Sends one request on `session` and collects its answer; the call's signal resets the stream (CANCEL). */
function exchange(session: H2cSession, headers: http2.OutgoingHttpHeaders, body: Uint8Array, signal: AbortSignal) {
  return new Promise<Answer>((resolve, reject) => {
    if (signal.aborted) {
      reject(getAbortSignalReason(signal));
      return;
    }
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request(headers);
    } catch (error) {
      reject(connectErrorOf(error));
      return;
    }
    let status = 0;
    let header: Headers | undefined;
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (error: unknown, answer?: Answer) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      if (answer) resolve(answer);
      else reject(error);
    };
    const onAbort = () => {
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      settle(getAbortSignalReason(signal));
    };
    signal.addEventListener("abort", onAbort);
    stream.on("response", (incoming) => {
      status = Number(incoming[":status"]);
      header = responseHeaderOf(incoming);
    });
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      if (header) settle(undefined, { status, header, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
    });
    stream.on("error", (error) => settle(connectErrorOf(error)));
    stream.on("close", () => {
      settle(resetError(stream.rstCode) ?? new ConnectError("http/2 stream closed without an answer", Code.Aborted));
    });
    stream.end(body);
  });
}

/** The unary transport over h2c described above; `stream` calls take Connect's own transport. */
export function createH2cTransport(options: H2cTransportOptions): Transport {
  const origin = new URL(options.baseUrl).origin;
  const session = new H2cSession(origin);
  let streaming: Transport | undefined;
  const outermostFirst = [...options.interceptors].reverse();
  // The innermost client step: the request on the wire, its answer read as Connect's transport reads it.
  const send = async (req: UnaryRequest): Promise<UnaryResponse> => {
    const method = req.method as DescMethodUnary;
    const answer = await exchange(
      session,
      requestHeadersOf(req, req.url.startsWith(origin) ? req.url.slice(origin.length) : new URL(req.url).pathname),
      toBinary(method.input, req.message),
      req.signal,
    );
    const { isUnaryError, unaryError } = validateResponseWithCompression(
      "unary",
      [],
      true,
      answer.status,
      answer.header,
    );
    const [header, trailer] = trailerDemux(answer.header);
    if (isUnaryError) throw errorFromJsonBytes(answer.body, appendHeaders(header, trailer), unaryError);
    return {
      stream: false,
      service: method.parent,
      method,
      header,
      trailer,
      message: fromBinary(method.output, answer.body),
    };
  };
  let next = send as Parameters<Interceptor>[0];
  for (const interceptor of outermostFirst) next = interceptor(next);

  return {
    unary: (async (method, signal, timeoutMs, header, message, contextValues) =>
      runUnaryCall(next, {
        baseUrl: options.baseUrl,
        method,
        signal,
        deadline: deadlineOf(timeoutMs, options.defaultTimeoutMs),
        header,
        message,
        contextValues,
      })) as Transport["unary"],
    stream: (...args) => {
      streaming ??= createConnectTransport({
        baseUrl: options.baseUrl,
        httpVersion: "2",
        defaultTimeoutMs: options.defaultTimeoutMs,
        interceptors: options.interceptors,
      });
      return streaming.stream(...args);
    },
  };
}
