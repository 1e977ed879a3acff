import type { App } from "./app.js";

/**
 * In this scope, a JSON request with an empty body parses as `{}` (wallets post to the nonce and
 * credential endpoints with `Content-Type: application/json` and sometimes nothing else).
 * Non-empty bodies go through Fastify's default JSON parser, prototype-poisoning protection included.
 */
export function acceptEmptyJsonBody(scope: App): void {
  const parseJson = scope.getDefaultJsonParser("error", "error");
  scope.removeContentTypeParser("application/json");
  scope.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") {
      done(null, {});
      return;
    }
    parseJson(request, text, done);
  });
}
