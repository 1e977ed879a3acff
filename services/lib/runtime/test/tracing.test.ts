import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { createApp } from "@attesto/runtime/http";
import { loggerOptions } from "@attesto/runtime/logging";
import { startTracing } from "@attesto/runtime/telemetry";
import { trace } from "@opentelemetry/api";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lifecycleSpanName, serverSpanName } from "../src/telemetry/tracing.js";

const config = {
  LOG_LEVEL: "silent",
  BODY_LIMIT_BYTES: 1024,
  REQUEST_TIMEOUT_MS: 5000,
  CORS_ORIGINS: "*",
  TRUST_PROXY: false,
} as const;

describe("tracing", () => {
  let collector: Server;
  const exported: string[] = [];
  beforeAll(async () => {
    collector = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        exported.push(`${req.url} ${body}`);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

  it("names spans after route templates; hooks after their function's name only when it is one", () => {
    expect(serverSpanName("POST", "/v1/offers/:offerId")).toBe("POST /v1/offers/:offerId");
    expect(serverSpanName("GET", undefined)).toBe("GET");
    expect(lifecycleSpanName("handler", "POST", "/v1/token", "anonymous")).toBe("handler POST /v1/token");
    expect(lifecycleSpanName("onRequest", "POST", "/v1/token", "corsHook")).toBe("onRequest corsHook");
    expect(lifecycleSpanName("onRequest", "POST", "/v1/token", "async (app) => { await x }")).toBe("onRequest");
  });

  it("is off when no OTLP endpoint is configured", async () => {
    expect(await startTracing({ serviceName: "x", endpoint: undefined })).toBeUndefined();
  });

  it("exports a span per request to the OTLP endpoint", async () => {
    const { port } = collector.address() as AddressInfo;
    const told: Array<{ fields: object; message: string }> = [];
    const tracing = await startTracing({
      serviceName: "trace-test",
      endpoint: `http://collector:s3cret@127.0.0.1:${port}/v1/traces?token=abc`,
      logger: { info: (fields: object, message: string) => told.push({ fields, message }) } as never,
    });
    expect(tracing).toBeDefined();
    // One start-up line naming the endpoint, without the collector's credentials.
    expect(told).toEqual([
      {
        fields: { otlp_endpoint: `http://127.0.0.1:${port}/v1/traces`, service_name: "trace-test" },
        message: "tracing on: exporting spans over OTLP/HTTP",
      },
    ]);
    // Log lines inside a span carry its ids.
    const lines: string[] = [];
    const log = pino(
      loggerOptions("trace-test", "info"),
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    log.info("outside");
    const ids = trace.getTracer("test").startActiveSpan("work", (span) => {
      log.info("inside");
      span.end();
      return span.spanContext();
    });
    const [outside, inside] = lines.map((line) => JSON.parse(line));
    expect(outside).not.toHaveProperty("trace_id");
    expect(inside).toMatchObject({ message: "inside", trace_id: ids.traceId, span_id: ids.spanId });
    const app = await createApp({
      service: "trace-test",
      version: "1.0.0",
      config,
      plugins: [(instance) => tracing!.instrument(instance, "trace-test")],
    });
    app.get("/traced/:id", async () => ({ ok: true }));
    await app.inject({ method: "GET", url: "/traced/42" });
    await app.close();
    await tracing!.shutdown();
    const payload = exported.join("\n");
    expect(payload).toContain("/v1/traces");
    expect(payload).toContain("/traced/:id");
    // Spans are named after the route template, not "request" or a handler's source text.
    expect(payload).toContain('"name":"GET /traced/:id"');
    expect(payload).toContain('"name":"handler GET /traced/:id"');
    expect(payload).not.toContain('"name":"request"');
    expect(payload).toContain("trace-test");
  });
});
