/**
 * Records every HTTP exchange a test makes with the platform's public ports: the real requests and
 * responses, as the client sent and received them, for the contract check (`contract-check.ts`).
 * It wraps the process's `fetch` (the suites' helpers and the OWF wallet libraries all use it) and
 * reads a copy of each response, so the caller's response is untouched.
 */

export interface Exchange {
  method: string;
  url: URL;
  /** The request's content type and body as sent (JSON and form bodies are checked). */
  requestContentType: string | undefined;
  requestBody: string | undefined;
  status: number;
  responseContentType: string | undefined;
  responseBody: string;
}

export interface ExchangeRecorder {
  readonly exchanges: readonly Exchange[];
  /** Waits for the bodies still being read. */
  settled(): Promise<void>;
  stop(): void;
}

const headerOf = (headers: ConstructorParameters<typeof Headers>[0], name: string): string | undefined => {
  if (headers === undefined) return undefined;
  return new Headers(headers).get(name) ?? undefined;
};

/** Starts recording the exchanges with `origins` (e.g. `http://localhost:20082`) until `stop()`. */
export function recordExchanges(origins: readonly string[]): ExchangeRecorder {
  const exchanges: Exchange[] = [];
  const pending: Array<Promise<void>> = [];
  const original = globalThis.fetch;
  const watched = new Set(origins.map((origin) => new URL(origin).origin));
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (!watched.has(url.origin)) return original(input, init);
    const requestBody = request.body ? await request.clone().text() : undefined;
    const response = await original(input, init);
    const copy = response.clone();
    pending.push(
      copy.text().then(
        (responseBody) => {
          exchanges.push({
            method: request.method,
            url,
            requestContentType: request.headers.get("content-type") ?? headerOf(init?.headers, "content-type"),
            requestBody,
            status: response.status,
            responseContentType: response.headers.get("content-type") ?? undefined,
            responseBody,
          });
        },
        () => undefined,
      ),
    );
    return response;
  };
  return {
    get exchanges() {
      return exchanges;
    },
    async settled() {
      await Promise.all(pending);
    },
    stop() {
      globalThis.fetch = original;
    },
  };
}
