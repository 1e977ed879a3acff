import { OutboundHttpError } from "../domain/http/outbound-http-error.js";
import type { OutboundHttp, OutboundRequest, OutboundResponse } from "../domain/ports.js";

export { OutboundHttpError };

export interface OutboundHttpOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  httpsOnly: boolean;
  /** The fetch implementation (tests). */
  fetch?: typeof fetch;
}

const MAX_REDIRECTS = 3;
const USER_AGENT = "attesto-holder/0.1";

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new OutboundHttpError(`response is larger than ${maxBytes} bytes`);
  if (!response.body) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new OutboundHttpError(`response is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** What went wrong with a fetch, without the URL's query (it may carry codes). */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (cause && typeof cause.code === "string") return cause.code;
  if ((error as Error)?.name === "TimeoutError" || (error as Error)?.name === "AbortError") return "timed out";
  return "connection failed";
}

/**
 * Outbound HTTP for the wallet's protocol calls: absolute http(s) URLs only (https only when so
 * configured), a deadline per request, a bounded response body, and at most three redirects for
 * GET, each checked against the same URL policy.
 */
export function createOutboundHttp(options: OutboundHttpOptions): OutboundHttp {
  const doFetch = options.fetch ?? fetch;
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
        let response: Response;
        try {
          response = await doFetch(current, {
            method: request.method,
            headers: { "user-agent": USER_AGENT, ...request.headers },
            ...(request.body === undefined ? {} : { body: request.body }),
            redirect: "manual",
            signal: AbortSignal.timeout(options.timeoutMs),
          });
        } catch (error) {
          throw new OutboundHttpError(`request to ${new URL(current).origin} failed (${reasonOf(error)})`, {
            cause: error,
          });
        }
        const location = response.headers.get("location");
        if (request.method === "GET" && response.status >= 300 && response.status < 400 && location) {
          await response.body?.cancel().catch(() => {});
          if (redirects >= MAX_REDIRECTS) throw new OutboundHttpError("too many redirects");
          current = new URL(location, current).toString();
          continue;
        }
        let text: string;
        try {
          text = await readBounded(response, options.maxResponseBytes);
        } catch (error) {
          if (error instanceof OutboundHttpError) throw error;
          throw new OutboundHttpError(`reading the response of ${new URL(current).origin} failed`, { cause: error });
        }
        return { status: response.status, headers: response.headers, text, url: current };
      }
    },
  };
}
