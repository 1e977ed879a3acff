import { Writable } from "node:stream";
import { AppError } from "@attesto/runtime/errors";
import { type App, createApp } from "@attesto/runtime/http";
import { loggerOptions } from "@attesto/runtime/logging";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { LazyRequestLogger } from "../src/http/request-logger.js";
import { logDestination } from "../src/log-destination.js";

type Line = Record<string, unknown>;

/** A service logger (loggerOptions) whose lines are collected in memory. */
function capture(level: string) {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { lines, log: pino(loggerOptions("svc", level), sink) };
}

/** A line without its time (the only field that differs between two loggers writing the same line). */
const untimed = ({ time, ...line }: Line) => {
  expect(time).toEqual(expect.any(String));
  return line;
};

describe("LazyRequestLogger", () => {
  const bindings = { request_id: "req-1" };

  it("makes no child and writes nothing for a line below the level", () => {
    const { lines, log } = capture("warn");
    const child = vi.spyOn(log, "child");
    const lazy = new LazyRequestLogger(log, bindings, {});
    lazy.info({ req: { method: "GET", url: "/x" } }, "incoming request");
    lazy.debug("detail");
    lazy.trace("more");
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    expect(lazy.level).toBe("warn");
    expect(lazy.isLevelEnabled("info")).toBe(false);
    expect(lazy.isLevelEnabled("warn")).toBe(true);
    expect(lazy.isLevelEnabled("no-such-level")).toBe(false);
  });

  it("writes the very line pino's child writes: request id, serializers, redaction", () => {
    const lazy = capture("info");
    const eager = capture("info");
    const fields = {
      req: { method: "POST", url: "/token?code=c0de&client_id=w", headers: { authorization: "Bearer s3cret" } },
      body: { password: "hunter2", name: "ok" },
    };
    new LazyRequestLogger(lazy.log, bindings, {}).info(fields, "incoming request");
    eager.log.child(bindings, {}).info(fields, "incoming request");
    expect(lazy.lines.map(untimed)).toEqual(eager.lines.map(untimed));
    const [line] = lazy.lines;
    expect(line).toMatchObject({ level: "info", service: "svc", request_id: "req-1", message: "incoming request" });
    expect(JSON.stringify(line)).not.toMatch(/c0de|s3cret|hunter2/);
  });

  it("makes the child once and keeps writing through it", () => {
    const { lines, log } = capture("info");
    const child = vi.spyOn(log, "child");
    const lazy = new LazyRequestLogger(log, bindings, {});
    lazy.info("one");
    lazy.warn({ n: 2 }, "two %s", "args");
    lazy.error(new Error("three"));
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((line) => [line.level, line.message, line.request_id])).toEqual([
      ["info", "one", "req-1"],
      ["warn", "two args", "req-1"],
      ["error", "three", "req-1"],
    ]);
    expect(lines[2]!.err).toMatchObject({ type: "Error", message: "three" });
  });

  it("respects a route's own level, above or below the service's", () => {
    const { lines, log } = capture("info");
    const quieter = new LazyRequestLogger(log, bindings, { level: "warn" });
    quieter.info("dropped");
    quieter.warn("kept");
    expect(quieter.level).toBe("warn");
    const louder = new LazyRequestLogger(log, { request_id: "req-2" }, { level: "debug" });
    louder.debug("kept too");
    louder.trace("dropped too");
    expect(lines.map((line) => [line.message, line.request_id])).toEqual([
      ["kept", "req-1"],
      ["kept too", "req-2"],
    ]);
  });

  it("follows the service logger's level when it changes", () => {
    const { lines, log } = capture("warn");
    const lazy = new LazyRequestLogger(log, bindings, {});
    lazy.info("dropped");
    log.level = "info";
    lazy.info("kept");
    expect(lines.map((line) => line.message)).toEqual(["kept"]);
  });

  it("hands child() and a level change to a real child", () => {
    const { lines, log } = capture("warn");
    const lazy = new LazyRequestLogger(log, bindings, {});
    lazy.child({ step: "x" }).warn("from a grandchild");
    lazy.level = "debug";
    lazy.debug("now enabled");
    expect(lazy.level).toBe("debug");
    expect(lines.map((line) => [line.message, line.request_id, line.step])).toEqual([
      ["from a grandchild", "req-1", "x"],
      ["now enabled", "req-1", undefined],
    ]);
  });
});

describe("createApp's request log", () => {
  /** Every line the process's log destination is given (not written out). */
  let written: Line[];
  const apps: App[] = [];

  async function appAt(level: "info" | "warn"): Promise<App> {
    const app = await createApp({
      service: "log-service",
      version: "1.0.0",
      config: {
        LOG_LEVEL: level,
        BODY_LIMIT_BYTES: 2048,
        REQUEST_TIMEOUT_MS: 5000,
        CORS_ORIGINS: "*",
        TRUST_PROXY: false,
      },
    });
    app.post("/token", { schema: { body: z.object({ code: z.string() }) } }, async () => ({ ok: true }));
    app.get("/boom", async () => {
      throw new Error("database password is hunter2");
    });
    app.get("/refused", async () => {
      throw new AppError(409, "conflict", "Already there");
    });
    await app.ready();
    apps.push(app);
    return app;
  }

  beforeAll(() => {
    vi.spyOn(logDestination(), "write").mockImplementation((line: string) => {
      written.push(JSON.parse(line));
      return true;
    });
  });
  afterEach(() => {
    written = [];
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    for (const app of apps) await app.close();
  });

  const secrets = { authorization: "Bearer t0ken", "x-api-key": "key_live_1", dpop: "pr00f" };

  it("at info: the incoming and completed lines with the request id, secrets redacted", async () => {
    const app = await appAt("info");
    written = [];
    await app.inject({
      method: "POST",
      url: "/token?code=qc0de",
      payload: { code: "bc0de" },
      headers: { ...secrets, "x-request-id": "rid-1" },
    });
    expect(written.map((line) => [line.level, line.message, line.request_id, line.service])).toEqual([
      ["info", "incoming request", "rid-1", "log-service"],
      ["info", "request completed", "rid-1", "log-service"],
    ]);
    expect(written[0]!.req).toEqual({
      method: "POST",
      url: "/token?code=[redacted]",
      host: "localhost:80",
      remoteAddress: "127.0.0.1",
    });
    expect(written[1]).toMatchObject({ res: { statusCode: 200 }, responseTime: expect.any(Number) });
    expect(JSON.stringify(written)).not.toMatch(/t0ken|key_live_1|pr00f|qc0de|bc0de/);
  });

  it("at info: a refusal's line and a server error's line, with the request id", async () => {
    const app = await appAt("info");
    written = [];
    await app.inject({ method: "GET", url: "/refused", headers: { "x-request-id": "rid-2" } });
    await app.inject({ method: "GET", url: "/boom", headers: { "x-request-id": "rid-3" } });
    expect(written.map((line) => [line.level, line.message, line.request_id])).toEqual([
      ["info", "incoming request", "rid-2"],
      ["info", "Already there", "rid-2"],
      ["info", "request completed", "rid-2"],
      ["info", "incoming request", "rid-3"],
      ["error", "request failed", "rid-3"],
      ["info", "request completed", "rid-3"],
    ]);
    expect(written[4]!.err).toMatchObject({ type: "Error", message: "database password is hunter2" });
  });

  it("at warn: nothing for a request that succeeds, the error line of one that fails", async () => {
    const app = await appAt("warn");
    written = [];
    await app.inject({ method: "POST", url: "/token", payload: { code: "c" }, headers: secrets });
    await app.inject({ method: "GET", url: "/refused" });
    expect(written).toEqual([]);
    await app.inject({ method: "GET", url: "/boom", headers: { "x-request-id": "rid-4" } });
    expect(written.map((line) => [line.level, line.message, line.request_id])).toEqual([
      ["error", "request failed", "rid-4"],
    ]);
  });

  it("GET /health at info: its route level (warn) keeps it out of the log", async () => {
    const app = await appAt("info");
    written = [];
    await app.inject({ method: "GET", url: "/health" });
    expect(written).toEqual([]);
  });
});
