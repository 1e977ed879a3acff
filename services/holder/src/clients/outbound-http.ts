import { Agent, type Dispatcher, request as undiciRequest } from "undici";
import { OutboundHttpError } from "../domain/http/outbound-http-error.js";
import type { OutboundHttp, OutboundRequest, OutboundResponse } from "../domain/ports.js";

export { OutboundHttpError };

export interface OutboundHttpOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  httpsOnly: boolean;
}

const MAX_REDIRECTS = 3;
const USER_AGENT = "attesto-holder/0.1";
/** Idle connections to an issuer or verifier are kept this long for the next call of a flow. */
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
/** Connections per origin: bounds what one busy issuer or verifier can take from the holder. */
const CONNECTIONS_PER_ORIGIN = 64;

async function readBounded(body: Dispatcher.ResponseData["body"], declared: number, maxBytes: number): Promise<string> {
  if (declared > maxBytes) {
    await body.dump().catch(() => {});
    throw new OutboundHttpError(`response is larger than ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      body.destroy();
      throw new OutboundHttpError(`response is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** What went wrong with a request, without the URL's query (it may carry codes). */
function reasonOf(error: unknown): string {
  const failure = error as { name?: unknown; code?: unknown; cause?: { code?: unknown } } | undefined;
  if (failure?.name === "TimeoutError" || failure?.name === "AbortError") return "timed out";
  if (failure?.code === "UND_ERR_CONNECT_TIMEOUT" || failure?.code === "UND_ERR_HEADERS_TIMEOUT") return "timed out";
  if (typeof failure?.code === "string" && !failure.code.startsWith("UND_ERR")) return failure.code;
  if (typeof failure?.cause?.code === "string") return failure.cause.code;
  return "connection failed";
}

/** Response headers as the Fetch API's Headers (what the domain reads them as). */
function headersOf(raw: Dispatcher.ResponseData["headers"]): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/**
 * Outbound HTTP for the wallet's protocol calls: absolute http(s) URLs only (https only when so
 * configured), a deadline per request, a bounded response body, and at most three redirects for
 * GET, each checked against the same URL policy. Requests go through undici's `request` over a
 * keep-alive agent (not the global `fetch`, whose web streams cost more CPU than the calls).
 */
export function createOutboundHttp(options: OutboundHttpOptions): OutboundHttp {
  const dispatcher = new Agent({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, connections: CONNECTIONS_PER_ORIGIN });
  const checkUrl = (url: string): string | undefined => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return "is not an absolute URL";
    }
    if (parsed.protocol === "https:") return undefined;
    if (parsed.protocol === "http:") return options.httpsOnly ? "must use https" : undefined;
    return "must be an http(s) URL";
  };

  return {
    checkUrl,
    async request(url: string, request: OutboundRequest): Promise<OutboundResponse> {
      let current = url;
      for (let redirects = 0; ; redirects++) {
        const problem = checkUrl(current);
        if (problem) throw new OutboundHttpError(`URL ${problem}`);
        let response: Dispatcher.ResponseData;
        try {
          response = await undiciRequest(current, {
            dispatcher,
            method: request.method,
            headers: { "user-agent": USER_AGENT, ...request.headers },
            ...(request.body === undefined ? {} : { body: request.body }),
            signal: AbortSignal.timeout(options.timeoutMs),
          });
        } catch (error) {
          throw new OutboundHttpError(`request to ${new URL(current).origin} failed (${reasonOf(error)})`, {
            cause: error,
          });
        }
        const headers = headersOf(response.headers);
        const location = headers.get("location");
        const status = response.statusCode;
        if (request.method === "GET" && status >= 300 && status < 400 && location) {
          await response.body.dump().catch(() => {});
          if (redirects >= MAX_REDIRECTS) throw new OutboundHttpError("too many redirects");
          current = new URL(location, current).toString();
          continue;
        }
        let text: string;
        try {
          const declared = Number(headers.get("content-length") ?? "0");
          text = await readBounded(response.body, declared, options.maxResponseBytes);
        } catch (error) {
          if (error instanceof OutboundHttpError) throw error;
          throw new OutboundHttpError(`reading the response of ${new URL(current).origin} failed`, { cause: error });
        }
        return { status, headers, text, url: current };
      }
    },
  };
}
