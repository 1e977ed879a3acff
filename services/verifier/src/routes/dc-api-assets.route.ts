import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { App } from "@attesto/runtime/http";
import { z } from "zod";

/** The verifier's browser files, next to src/ (copied as they are into a build). */
const asset = (name: string) => readFileSync(new URL(`../../public/${name}`, import.meta.url), "utf8");

const DC_API_MODULE = asset("dc-api.js");
const DEMO_HTML = asset("dc-api-demo.html");
const DEMO_SCRIPT = asset("dc-api-demo.js");
const DEMO_STYLE = asset("dc-api-demo.css");

/** The demo may load only its own files and call only this verifier. */
const DEMO_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const etagOf = (text: string) => `"${createHash("sha256").update(text).digest("base64url").slice(0, 27)}"`;

const zText = (about: string) => ({ response: { 200: z.string().describe(about) } });

/**
 * GET /v1/verifier/dc-api.js (the dependency-free ES module relying-party pages import; any origin
 * may load it) and the demo page that uses it: GET /v1/verifier/dc-api/demo (+ demo.js, demo.css).
 */
export function registerDcApiAssetRoutes(app: App): void {
  const serve = (path: string, type: string, body: string, about: string, csp?: string) =>
    app.get(path, { schema: zText(about), config: { produces: type.split(";")[0] } }, async (_request, reply) => {
      reply.type(type).header("cache-control", "public, max-age=300").header("etag", etagOf(body));
      if (csp) reply.header("content-security-policy", csp);
      return reply.send(body);
    });
  serve(
    "/v1/verifier/dc-api.js",
    "text/javascript; charset=utf-8",
    DC_API_MODULE,
    "ES module: presentWithDigitalCredentials, isDigitalCredentialsSupported",
  );
  serve("/v1/verifier/dc-api/demo", "text/html; charset=utf-8", DEMO_HTML, "Demo page of the DC API flow", DEMO_CSP);
  serve("/v1/verifier/dc-api/demo.js", "text/javascript; charset=utf-8", DEMO_SCRIPT, "The demo page's script");
  serve("/v1/verifier/dc-api/demo.css", "text/css; charset=utf-8", DEMO_STYLE, "The demo page's style");
}
