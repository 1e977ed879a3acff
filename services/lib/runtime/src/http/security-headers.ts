import helmet from "helmet";
import type { App } from "./app.js";

/** helmet's options: no CSP (pages that need one set their own), a cross-origin resource policy (wallets and relying parties fetch from other origins). */
const HELMET_OPTIONS = {
  contentSecurityPolicy: false,
  crossOriginResourcePolicy: { policy: "cross-origin" },
} as const;

/**
 * The headers helmet sets with HELMET_OPTIONS, by lower-case name, computed once: helmet's
 * middleware is run against a response that records what it is told. Its headers do not depend
 * on the request, so every answer carries the same set. A helmet release that read the request,
 * answered asynchronously or did anything but set and remove headers fails here, at start-up.
 */
export function securityHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: unknown) {
      if (typeof value !== "string") throw new Error(`security headers: ${name} is not a string`);
      headers[name.toLowerCase()] = value;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let done = false;
  helmet(HELMET_OPTIONS)(
    new Proxy({} as never, {
      get: (_target, property) => {
        throw new Error(`security headers: helmet read the request (${String(property)})`);
      },
    }),
    recorder as never,
    (error?: unknown) => {
      if (error) throw error;
      done = true;
    },
  );
  if (!done) throw new Error("security headers: helmet did not finish synchronously");
  return Object.freeze(headers);
}

/**
 * helmet's security headers on every answer (securityHeaders), set in the first onRequest hook
 * as the reply's own headers: built once at start-up instead of running helmet's middleware chain
 * per request (eleven `setHeader` calls on the raw response, which also sent every other header
 * of the answer through Node's slower mixed path). A route may still override one by name.
 */
export function installSecurityHeaders(app: App): void {
  const headers = securityHeaders();
  const names = Object.keys(headers);
  const values = names.map((name) => headers[name]!);
  app.addHook("onRequest", (_request, reply, done) => {
    for (let i = 0; i < names.length; i++) reply.header(names[i]!, values[i]);
    done();
  });
}
