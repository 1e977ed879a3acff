import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, startTracing } from "../src/index.js";

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

  it("is off when no OTLP endpoint is configured", async () => {
    expect(await startTracing({ serviceName: "x", endpoint: undefined })).toBeUndefined();
  });

  it("exports a span per request to the OTLP endpoint", async () => {
    const { port } = collector.address() as AddressInfo;
    const tracing = await startTracing({ serviceName: "trace-test", endpoint: `http://127.0.0.1:${port}/v1/traces` });
    expect(tracing).toBeDefined();
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
    expect(payload).toContain("trace-test");
  });
});
