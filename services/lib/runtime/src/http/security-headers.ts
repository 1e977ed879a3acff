import helmet from "helmet";
import type { App } from "./app.js";

/**
 * helmet's security headers on every response (no CSP: pages that need one set their own; the
 * resource policy is cross-origin, as wallets and relying parties fetch from other origins).
 * The middleware is built once: `@fastify/helmet` rebuilt helmet's whole middleware chain for
 * every request (its route-level options), which cost more than the headers themselves.
 */
export function installSecurityHeaders(app: App): void {
  const applyHeaders = helmet({
    contentSecurityPolicy: false,
    crossOriginResourcePolicy: { policy: "cross-origin" },
  });
  app.addHook("onRequest", (request, reply, done) => {
    applyHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
  });
}
