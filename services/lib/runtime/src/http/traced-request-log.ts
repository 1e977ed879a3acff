import { type FastifyInstance, LogController } from "fastify";

/**
 * Fastify writes its "incoming request" line before any onRequest hook, so before the request's
 * span exists: that one line would lack `trace_id`/`span_id`. This controller leaves it out, and
 * `logIncomingRequests` writes the same line from an onRequest hook added after the tracing plugin's,
 * inside the request's span. Every other line (completion, errors) is Fastify's as before.
 */
export class DeferredIncomingRequestLog extends LogController {
  override incomingRequest(): void {}
}

/** The "incoming request" line, written from the last onRequest hook (register after tracing). */
export function logIncomingRequests(app: FastifyInstance): void {
  app.addHook("onRequest", (request, _reply, done) => {
    request.log.info({ req: request }, "incoming request");
    done();
  });
}
