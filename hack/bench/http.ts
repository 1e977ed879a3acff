import { Agent, request } from "undici";

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export class HttpError extends Error {
  constructor(
    readonly step: string,
    readonly response: HttpResponse | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The load generator's HTTP client: one undici Agent whose pool per origin holds at most
 * `connections` keep-alive connections (= the concurrency), HTTP/1.1 without pipelining.
 */
export class HttpClient {
  private readonly agent: Agent;

  /** `connect`: socket options for every connection (hack/kind-e2e-flow.ts: DNS override, test TLS). */
  constructor(connections: number, connect?: Agent.Options["connect"]) {
    this.agent = new Agent({
      connections,
      pipelining: 1,
      keepAliveTimeout: 60_000,
      headersTimeout: 30_000,
      ...(connect ? { connect } : {}),
    });
  }

  async send(
    method: "GET" | "POST",
    url: string,
    options: { headers?: Record<string, string>; body?: string } = {},
  ): Promise<HttpResponse> {
    const response = await request(url, {
      method,
      dispatcher: this.agent,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  }

  /** `send`, then the status must be `expected`; the body is parsed as JSON. */
  async json<T>(
    step: string,
    method: "GET" | "POST",
    url: string,
    expected: number,
    options: { headers?: Record<string, string>; body?: string } = {},
  ): Promise<{ body: T; response: HttpResponse }> {
    const response = await this.send(method, url, options);
    if (response.status !== expected) {
      throw new HttpError(step, response, `${step}: HTTP ${response.status} ${response.text.slice(0, 300)}`);
    }
    return { body: JSON.parse(response.text) as T, response };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

export const header = (response: HttpResponse, name: string): string | undefined => {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
};
