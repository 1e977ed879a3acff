import { isAppError } from "@attesto/runtime/errors";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { AuthorizationPageError } from "../domain/authorization/authorization-page-error.js";
import { errorPage } from "../pages/message-pages.js";
import type { Page } from "../pages/render-page.js";

/** The browser session cookie: HttpOnly, SameSite=Lax, Secure behind https. */
export const SESSION_COOKIE = "attesto_as_session";

/** Sends a server-rendered page with its own CSP (the runtime's helmet sets none) and no caching. */
export function sendPage(reply: FastifyReply, page: Page): FastifyReply {
  return reply
    .code(page.status)
    .header("Content-Type", "text/html; charset=utf-8")
    .header("Cache-Control", "no-store")
    .header("Pragma", "no-cache")
    .header("Content-Security-Policy", page.csp)
    .send(page.html);
}

/** The value of one cookie of the request (no cookie plugin: one name, one value). */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) {
      const value = part.slice(index + 1).trim();
      return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export interface SessionCookieOptions {
  /** Secure cookies when the public URL is https. */
  secure: boolean;
}

export function setSessionCookie(
  reply: FastifyReply,
  id: string,
  maxAgeSeconds: number,
  options: SessionCookieOptions,
) {
  const attributes = [`${SESSION_COOKIE}=${id}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeSeconds}`];
  if (options.secure) attributes.push("Secure");
  reply.header("Set-Cookie", attributes.join("; "));
}

export function clearSessionCookie(reply: FastifyReply, options: SessionCookieOptions) {
  const attributes = [`${SESSION_COOKIE}=`, "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=0"];
  if (options.secure) attributes.push("Secure");
  reply.header("Set-Cookie", attributes.join("; "));
}

/** A single query or form value; a repeated or missing one is undefined (the step then explains). */
export function singleValue(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Error handler of the browser routes: every failure is an HTML page with its status (never JSON,
 * never a redirect). Internal failures show a generic page; the log keeps the cause.
 */
export function browserErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AuthorizationPageError) {
    request.log.info({ status: error.status, code: error.code }, error.message);
    return sendPage(reply, errorPage(error.status, error.title, error.message));
  }
  if (isAppError(error) && error.status === 503) {
    request.log.warn({ err: error.cause ?? error }, "dependency unavailable");
    return sendPage(
      reply,
      errorPage(503, "Temporarily unavailable", "A service this page needs is unavailable. Try again shortly."),
    );
  }
  const status = isAppError(error) ? error.status : error.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return sendPage(
      reply,
      errorPage(status, "Request not accepted", "This request cannot be handled. Start again from your wallet."),
    );
  }
  request.log.error({ err: error }, "request failed");
  return sendPage(reply, errorPage(500, "Something went wrong", "The authorization server failed. Try again later."));
}
