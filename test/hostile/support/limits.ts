import { type RawResult, rawHttp } from "./http.js";

/** Default BODY_LIMIT_BYTES of every service (docs/configuration.md). */
export const BODY_LIMIT_BYTES = 1_048_576;

/**
 * A POST whose declared Content-Length exceeds the body limit: the server must answer 413 from the
 * header alone (only the first 64 KiB are sent), not wait for the rest or fail.
 */
export function oversizedPost(
  port: number,
  path: string,
  contentType: string,
  extraHeaders: Record<string, string> = {},
): Promise<RawResult> {
  const declared = BODY_LIMIT_BYTES + 1024;
  const head = [
    `POST ${path} HTTP/1.1`,
    "Host: localhost",
    `Content-Type: ${contentType}`,
    `Content-Length: ${declared}`,
    ...Object.entries(extraHeaders).map(([name, value]) => `${name}: ${value}`),
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  const filler = contentType.includes("json") ? `{"a":"${"x".repeat(64 * 1024)}` : `a=${"x".repeat(64 * 1024)}`;
  return rawHttp(port, Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(filler)]));
}

/** The same with chunked transfer encoding (no Content-Length): the limit must hold while streaming. */
export function oversizedChunkedPost(
  port: number,
  path: string,
  contentType: string,
  extraHeaders: Record<string, string> = {},
): Promise<RawResult> {
  const head = [
    `POST ${path} HTTP/1.1`,
    "Host: localhost",
    `Content-Type: ${contentType}`,
    "Transfer-Encoding: chunked",
    ...Object.entries(extraHeaders).map(([name, value]) => `${name}: ${value}`),
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  const chunk = "x".repeat(256 * 1024);
  const chunkFrame = `${chunk.length.toString(16)}\r\n${chunk}\r\n`;
  const first = contentType.includes("json") ? '{"a":"' : "a=";
  const body = `${first.length.toString(16)}\r\n${first}\r\n${chunkFrame.repeat(5)}0\r\n\r\n`;
  return rawHttp(port, Buffer.from(head + body, "latin1"));
}
