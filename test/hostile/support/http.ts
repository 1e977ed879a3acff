import { connect } from "node:net";
import { expect } from "vitest";

/** No request may take longer than this: a slower answer counts as a hang. */
export const REQUEST_TIMEOUT_MS = 10_000;

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: unknown;
}

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs?: number;
}

const describeRequest = (url: string, request: HttpRequest) =>
  `${request.method ?? "GET"} ${url.length > 300 ? `${url.slice(0, 300)}…` : url}`;

/** One HTTP request with a hard deadline; a timeout fails with the request named. */
export async function http(url: string, request: HttpRequest = {}): Promise<HttpResult> {
  const timeoutMs = request.timeoutMs ?? REQUEST_TIMEOUT_MS;
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method ?? "GET",
      headers: request.headers,
      body: request.body as string | undefined,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    if ((error as Error).name === "TimeoutError") {
      throw new Error(`HANG: no answer within ${timeoutMs} ms to ${describeRequest(url, request)}`);
    }
    throw error;
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  http(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

export const postForm = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  http(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });

export interface RawResult {
  status: number;
  /** Raw header block (lower-cased names). */
  headers: Record<string, string>;
  body: string;
  json: unknown;
}

/**
 * Bytes on a socket, for requests `fetch` refuses to send (bad header bytes, bad lengths,
 * raw invalid UTF-8 in the path). Resolves with the first response (or status 0 when the server
 * closed without answering).
 */
export function rawHttp(port: number, request: string | Buffer, timeoutMs = REQUEST_TIMEOUT_MS): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`HANG: raw request to port ${port} got no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      resolve(parseRaw(Buffer.concat(chunks)));
    };
    socket.on("data", (chunk) => {
      chunks.push(chunk);
      const parsed = parseRaw(Buffer.concat(chunks));
      if (parsed.complete) {
        socket.destroy();
        finish();
      }
    });
    socket.on("end", finish);
    socket.on("close", finish);
    socket.on("error", (error) => {
      clearTimeout(timer);
      if (chunks.length > 0) finish();
      else if ((error as NodeJS.ErrnoException).code === "ECONNRESET") resolve(parseRaw(Buffer.alloc(0)));
      else reject(error);
    });
    socket.write(request);
  });
}

function parseRaw(data: Buffer): RawResult & { complete: boolean } {
  const text = data.toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) return { status: 0, headers: {}, body: "", json: undefined, complete: false };
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyBytes = data.subarray(Buffer.byteLength(text.slice(0, end + 4), "latin1"));
  const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
  const complete = length !== undefined ? bodyBytes.length >= length : false;
  const body = bodyBytes.toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status, headers, body, json, complete };
}

export type ErrorShape = "api" | "oauth";

/** The documented error body: `{error, message}` (api) or `{error, error_description}` (oauth), nothing else. */
export function hasErrorShape(json: unknown, shape: ErrorShape): boolean {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return false;
  const keys = Object.keys(json).sort();
  const body = json as Record<string, unknown>;
  const second = shape === "api" ? "message" : "error_description";
  // A validation failure also lists every failing field: `errors: [{field, message}]`.
  const fieldErrors = body.errors;
  const listsFields =
    Array.isArray(fieldErrors) &&
    fieldErrors.length > 0 &&
    fieldErrors.every(
      (item) =>
        typeof item === "object" &&
        item !== null &&
        Object.keys(item).sort().join() === "field,message" &&
        typeof item.field === "string" &&
        typeof item.message === "string",
    );
  return (
    keys.length === (keys.includes("errors") ? 3 : 2) &&
    (!keys.includes("errors") || listsFields) &&
    keys.includes("error") &&
    keys.includes(second) &&
    typeof body.error === "string" &&
    /^[a-z][a-z0-9_]*$/.test(body.error) &&
    typeof body[second] === "string"
  );
}

const summary = (result: { status: number; text?: string; body?: string }) =>
  `${result.status} ${(result.text ?? result.body ?? "").slice(0, 500)}`;

/**
 * A refused request: a 4xx (one of `statuses` when given) with the documented error shape.
 * `context` names the input in the failure message, so a property failure is reproducible.
 */
export function expectRefused(
  result: HttpResult | RawResult,
  shape: ErrorShape,
  options: { statuses?: number[]; code?: string; context?: string } = {},
): void {
  const where = options.context ? ` (${options.context})` : "";
  expect(result.status, `expected a 4xx, got ${summary(result)}${where}`).toBeGreaterThanOrEqual(400);
  expect(result.status, `expected a 4xx, got ${summary(result)}${where}`).toBeLessThan(500);
  if (options.statuses) expect(options.statuses, `status ${summary(result)}${where}`).toContain(result.status);
  expect(hasErrorShape(result.json, shape), `expected the ${shape} error shape, got ${summary(result)}${where}`).toBe(
    true,
  );
  if (options.code) {
    expect((result.json as { error: string }).error, `error code${where}: ${summary(result)}`).toBe(options.code);
  }
}

/** An error body in the documented shape, whatever the status (e.g. a 503 from an unreachable dependency). */
export function expectErrorBody(result: HttpResult | RawResult, shape: ErrorShape, context?: string): void {
  const where = context ? ` (${context})` : "";
  expect(hasErrorShape(result.json, shape), `expected the ${shape} error shape, got ${summary(result)}${where}`).toBe(
    true,
  );
}

/** Any answer but a 5xx; a 4xx must carry the documented error shape. */
export function expectNoServerError(result: HttpResult | RawResult, shape: ErrorShape, context?: string): void {
  const where = context ? ` (${context})` : "";
  expect(result.status, `server error ${summary(result)}${where}`).toBeLessThan(500);
  if (result.status >= 400) {
    expect(hasErrorShape(result.json, shape), `expected the ${shape} error shape, got ${summary(result)}${where}`).toBe(
      true,
    );
  }
}

/**
 * encodeURIComponent that never throws: a lone surrogate becomes its WTF-8 bytes, percent-encoded
 * (`%ED%A0%80`), which is exactly the invalid UTF-8 a hostile client would send.
 */
export function encodeHostile(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(text.slice(i, i + 2));
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      out += `%${(0xe0 | (code >> 12)).toString(16).toUpperCase()}%${(0x80 | ((code >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`;
    } else {
      out += encodeURIComponent(text[i]!);
    }
  }
  return out;
}

/** A short, printable description of a fuzz input for failure messages. */
export function show(value: unknown, max = 300): string {
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value, (_k, v) => v);
  } catch {
    text = String(value);
  }
  if (text === undefined) text = String(value);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
