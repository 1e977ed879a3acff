import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector, type Dispatcher, request as undiciRequest } from "undici";
import { isPublicAddress } from "./public-address.js";
import { redactUrl } from "./redact-url.js";

/** A DNS resolver: every address of a host name (tests replace the system's). */
export type Lookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** Where the guard reports what went wrong (pino's `warn`/`debug` fit). */
export interface OutboundLogger {
  warn(details: object, message: string): void;
  debug(details: object, message: string): void;
}

export interface OutboundGuardOptions {
  /**
   * `host:port` entries (exact, as the URL writes the host) that may be reached although they
   * resolve to internal addresses, and over http: the all-in-one's own services, or a documented
   * OUTBOUND_ALLOW_HOSTS. Nothing internal is reachable otherwise.
   */
  allowHosts?: readonly string[];
  /** Every internal address is reachable, over http too (tests and local tooling only). */
  allowInternal?: boolean;
  /** Plain http:// to public hosts (OUTBOUND_ALLOW_HTTP); https only otherwise. */
  allowHttp?: boolean;
  /** Deadline of one request (DNS, connect, TLS, redirects, response body). Default 10 s. */
  timeoutMs?: number;
  /** Largest response body read. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Redirects followed by GET (each one checked again); 0 refuses redirects. Default 3. */
  maxRedirects?: number;
  userAgent?: string;
  lookup?: Lookup;
  logger?: OutboundLogger;
}

export interface OutboundRequest {
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Overrides the guard's deadline for this request. */
  timeoutMs?: number;
  /** Overrides the guard's response size limit for this request. */
  maxBytes?: number;
  /** Read and drop the body (up to the size limit, then stop reading): `text` is empty. */
  discardBody?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: Headers;
  /** The body as text, at most the size limit. */
  text: string;
  /** The final URL (after redirects). */
  url: string;
}

/**
 * What went wrong, as a category callers may act on (`refused`: the URL or its address is not
 * allowed, retrying cannot help). The message is generic and safe to show; `detail` (network
 * error codes, statuses) is for the log only: shown to a caller it would make the service a
 * scanner of ports it can reach.
 */
export type OutboundFailure = "refused" | "failed" | "timeout" | "too_large" | "status" | "not_json";

export class OutboundRequestError extends Error {
  override name = "OutboundRequestError";
  constructor(
    readonly failure: OutboundFailure,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(failure === "refused" ? "the URL is not allowed" : "the request could not be completed", options);
  }
}

export interface OutboundGuard {
  /** Why `url` may not be fetched at all (not absolute http(s), credentials, http not allowed), or undefined. */
  checkUrl(url: string): string | undefined;
  /** One request under the policy; throws OutboundRequestError for anything but an HTTP answer. */
  request(url: string, request: OutboundRequest): Promise<OutboundResponse>;
  /** GET a JSON document: a 2xx answer whose body parses as JSON, else OutboundRequestError. */
  fetchJson(
    url: string,
    options?: { maxBytes?: number; timeoutMs?: number; headers?: Record<string, string> },
  ): Promise<unknown>;
  /**
   * The undici dispatcher behind `request`: connects only to checked addresses. It does not
   * check schemes or redirects: prefer `request`/`fetchJson`; with `fetch`, pass `redirect: "manual"`.
   */
  readonly dispatcher: Dispatcher;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
const CONNECTIONS_PER_ORIGIN = 64;

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

const unbracketed = (host: string) => host.replace(/^\[(.*)\]$/, "$1");

/** `host:port` of a URL as allowances are written (lowercase host, IPv6 in brackets, explicit port). */
function hostPortOf(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname.toLowerCase()}:${port}`;
}

/** Parses one allowance (`host:port`, port required) into the form requests are matched in. */
export function parseAllowedHost(entry: string): string {
  const text = entry.trim();
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535) throw new Error(`"${text}" is not host:port (an explicit port is required)`);
  let hostname: string;
  try {
    hostname = new URL(`http://${match[1]}/`).hostname;
  } catch {
    throw new Error(`"${text}" is not host:port`);
  }
  return `${hostname.toLowerCase()}:${port}`;
}

class RefusedAddressError extends Error {
  override name = "RefusedAddressError";
}

/**
 * The guard for every server-side request to a URL that a user, wallet, issuer or tenant supplied.
 * Each connection resolves the host once, checks every address it resolved to, and connects to
 * those checked addresses only (the check is inside the connection's own lookup: a DNS answer
 * that changes between check and connect cannot reach an internal address). Literal IP hosts are
 * checked the same way. Redirects are followed by GET only, at most `maxRedirects`, each one
 * through the same checks; one deadline covers the whole request and the body is size-capped.
 */
export function createOutboundGuard(options: OutboundGuardOptions = {}): OutboundGuard {
  const allowed = new Set((options.allowHosts ?? []).map(parseAllowedHost));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? 3;
  const resolve = options.lookup ?? systemLookup;
  const isAllowedHost = (hostPort: string) => options.allowInternal === true || allowed.has(hostPort);

  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const reply = callback as unknown as (
      error: Error | null,
      address?: string | Array<{ address: string; family: number }>,
      family?: number,
    ) => void;
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return reply(new Error(`${hostname} did not resolve`));
        const internal = addresses.find((entry) => !isPublicAddress(entry.address));
        if (internal) {
          return reply(new RefusedAddressError(`${hostname} resolves to non-public address ${internal.address}`));
        }
        if ((lookupOptions as { all?: boolean }).all) return reply(null, addresses);
        const [first] = addresses;
        return reply(null, first!.address, first!.family);
      },
      (error: unknown) => reply(error instanceof Error ? error : new Error(String(error))),
    );
  };
  const checkedConnector = buildConnector({ lookup: guardedLookup } as buildConnector.BuildOptions);
  const openConnector = buildConnector({});
  const connect: buildConnector.connector = (target, callback) => {
    const host = unbracketed(target.hostname);
    const port = target.port || (target.protocol === "https:" ? "443" : "80");
    const hostPort = `${isIP(host) === 6 ? `[${host}]` : host.toLowerCase()}:${port}`;
    if (isAllowedHost(hostPort)) return openConnector(target, callback);
    if (isIP(host) && !isPublicAddress(host)) {
      return callback(new RefusedAddressError(`${host} is not a public address`), null);
    }
    return checkedConnector(target, callback);
  };
  const dispatcher = new Agent({
    connect,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connections: CONNECTIONS_PER_ORIGIN,
  });

  const checkUrl = (url: string): string | undefined => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return "is not an absolute URL";
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "must be an http(s) URL";
    if (parsed.username || parsed.password) return "must not carry credentials";
    if (parsed.protocol === "http:" && !options.allowHttp && !isAllowedHost(hostPortOf(parsed))) {
      return "must use https";
    }
    return undefined;
  };

  const fail = (url: string, error: OutboundRequestError): never => {
    const details = { outbound: { url: redactUrl(url), failure: error.failure, detail: error.detail } };
    if (error.failure === "refused") options.logger?.warn(details, "outbound request refused");
    else options.logger?.warn(details, "outbound request failed");
    throw error;
  };

  const request = async (url: string, outbound: OutboundRequest): Promise<OutboundResponse> => {
    const limit = outbound.maxBytes ?? maxBytes;
    const deadline = AbortSignal.timeout(outbound.timeoutMs ?? timeoutMs);
    let current = url;
    for (let redirects = 0; ; redirects++) {
      const problem = checkUrl(current);
      if (problem) return fail(current, new OutboundRequestError("refused", `URL ${problem}`));
      let response: Dispatcher.ResponseData;
      try {
        response = await undiciRequest(current, {
          dispatcher,
          method: outbound.method,
          headers: { ...(options.userAgent ? { "user-agent": options.userAgent } : {}), ...outbound.headers },
          ...(outbound.body === undefined ? {} : { body: outbound.body }),
          signal: deadline,
        });
      } catch (error) {
        return fail(current, classify(error, deadline));
      }
      const headers = headersOf(response.headers);
      const location = headers.get("location");
      const status = response.statusCode;
      if (outbound.method === "GET" && status >= 300 && status < 400 && location) {
        await response.body.dump().catch(() => {});
        if (redirects >= maxRedirects) {
          return fail(current, new OutboundRequestError("refused", `redirect (${status}) not followed`));
        }
        let next: string;
        try {
          next = new URL(location, current).toString();
        } catch {
          return fail(current, new OutboundRequestError("failed", "redirect to an invalid URL"));
        }
        options.logger?.debug(
          { outbound: { url: redactUrl(current), redirect: redactUrl(next) } },
          "outbound redirect",
        );
        current = next;
        continue;
      }
      if (outbound.discardBody) {
        await response.body.dump({ limit: limit }).catch(() => {});
        return { status, headers, text: "", url: current };
      }
      try {
        const text = await readBounded(response.body, Number(headers.get("content-length") ?? "0"), limit);
        return { status, headers, text, url: current };
      } catch (error) {
        return fail(current, error instanceof OutboundRequestError ? error : classify(error, deadline));
      }
    }
  };

  return {
    checkUrl,
    request,
    async fetchJson(url, fetchOptions = {}) {
      const response = await request(url, {
        method: "GET",
        headers: { accept: "application/json", ...fetchOptions.headers },
        ...(fetchOptions.maxBytes === undefined ? {} : { maxBytes: fetchOptions.maxBytes }),
        ...(fetchOptions.timeoutMs === undefined ? {} : { timeoutMs: fetchOptions.timeoutMs }),
      });
      if (response.status < 200 || response.status >= 300) {
        return fail(response.url, new OutboundRequestError("status", `HTTP ${response.status}`));
      }
      try {
        return JSON.parse(response.text) as unknown;
      } catch {
        return fail(response.url, new OutboundRequestError("not_json", "the body is not JSON"));
      }
    },
    dispatcher,
    close: () => dispatcher.close(),
  };
}

/** The failure category and log detail of an error thrown while requesting or reading. */
function classify(error: unknown, deadline: AbortSignal): OutboundRequestError {
  const chain: unknown[] = [];
  for (let e: unknown = error; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  if (chain.some((e) => e instanceof RefusedAddressError)) {
    const refused = chain.find((e) => e instanceof RefusedAddressError) as RefusedAddressError;
    return new OutboundRequestError("refused", refused.message, { cause: error });
  }
  const codes = chain.map((e) => (e as { code?: unknown }).code).filter((c): c is string => typeof c === "string");
  if (deadline.aborted || codes.some((c) => c === "UND_ERR_CONNECT_TIMEOUT" || c === "UND_ERR_HEADERS_TIMEOUT")) {
    return new OutboundRequestError("timeout", "timed out", { cause: error });
  }
  const first = chain[0] as { message?: unknown } | undefined;
  return new OutboundRequestError("failed", codes[0] ?? String(first?.message ?? "connection failed"), {
    cause: error,
  });
}

async function readBounded(body: Dispatcher.ResponseData["body"], declared: number, maxBytes: number): Promise<string> {
  const tooLarge = () => new OutboundRequestError("too_large", `response larger than ${maxBytes} bytes`);
  const discard = () => {
    body.on("error", () => {});
    body.destroy();
  };
  if (declared > maxBytes) {
    discard();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      discard();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Response headers as the Fetch API's Headers. */
function headersOf(raw: Dispatcher.ResponseData["headers"]): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}
