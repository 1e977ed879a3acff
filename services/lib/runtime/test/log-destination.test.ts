import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createLogger, loggerOptions } from "@attesto/runtime/logging";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { BatchedLogDestination } from "../src/log-destination.js";

const repository = fileURLToPath(new URL("../../../..", import.meta.url));
const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A batched destination whose writes (one per batch) are collected in memory. */
function capture() {
  const writes: string[] = [];
  const destination = new BatchedLogDestination({ write: (text: string) => writes.push(text) });
  return { writes, destination, log: pino(loggerOptions("svc", "info"), destination) };
}

const linesOf = (text: string) =>
  text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("batched log destination", () => {
  it("writes the lines of one event-loop turn with one write, at the end of the turn", async () => {
    const { writes, log } = capture();
    log.info("one");
    log.info("two");
    log.warn("three");
    expect(writes).toEqual([]);
    await endOfTurn();
    expect(writes).toHaveLength(1);
    expect(linesOf(writes[0]!).map((line) => [line.level, line.message, line.service])).toEqual([
      ["info", "one", "svc"],
      ["info", "two", "svc"],
      ["warn", "three", "svc"],
    ]);
    log.info("next turn");
    await endOfTurn();
    expect(writes).toHaveLength(2);
    expect(linesOf(writes[1]!).map((line) => line.message)).toEqual(["next turn"]);
  });

  it("writes error and fatal lines at once, after what was pending", () => {
    const { writes, log } = capture();
    log.info("before");
    log.error("failed");
    expect(writes).toHaveLength(1);
    expect(linesOf(writes[0]!).map((line) => line.message)).toEqual(["before", "failed"]);
    log.fatal("down");
    expect(linesOf(writes[1]!).map((line) => line.message)).toEqual(["down"]);
  });

  it("hands pending lines over on flush and calls the flush callback", () => {
    const { writes, log } = capture();
    log.info("pending");
    let flushed = false;
    log.flush(() => {
      flushed = true;
    });
    expect(flushed).toBe(true);
    expect(linesOf(writes.join("")).map((line) => line.message)).toEqual(["pending"]);
  });

  it("keeps redacting secrets", async () => {
    const { writes, log } = capture();
    log.info({ req: { headers: { authorization: "Bearer s3cret" } }, body: { password: "hunter2" } }, "request");
    await endOfTurn();
    expect(writes.join("")).not.toMatch(/s3cret|hunter2/);
    expect(linesOf(writes[0]!)[0]).toMatchObject({ body: { password: "[redacted]" } });
  });

  it("createLogger writes to the shared destination", async () => {
    // The shared destination writes to standard output, which this suite does not read: the
    // child-process cases below check what reaches it; here only that both loggers share it.
    const { logDestination } = await import("../src/log-destination.js");
    const log = createLogger("svc", "info");
    expect((log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym]).toBe(logDestination());
  });
});

/** Runs `body` in a fresh Node process with `createLogger` imported; answers its exit status and stdout lines. */
function runChild(body: string, prelude = 'const { createLogger } = await import("@attesto/runtime/logging");') {
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", `${prelude}\n${body}`], {
    cwd: repository,
    encoding: "utf8",
  });
  return { status: run.status, stderr: run.stderr, lines: linesOf(run.stdout) };
}

describe("the process's log destination at exit", () => {
  const LINES = 200;

  it("writes every pending line when the process exits in the turn that logged them", () => {
    const run = runChild(`
      const log = createLogger("child", "info");
      for (let n = 0; n < ${LINES}; n++) log.info({ n }, "line");
      process.exit(3);
    `);
    expect(run.status).toBe(3);
    expect(run.lines.map((line) => line.n)).toEqual(Array.from({ length: LINES }, (_, n) => n));
  });

  it("writes every pending line when an uncaught exception ends the process", () => {
    const run = runChild(`
      const log = createLogger("child", "info");
      setTimeout(() => {
        for (let n = 0; n < ${LINES}; n++) log.info({ n }, "line");
        throw new Error("boom");
      }, 0);
    `);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("boom");
    expect(run.lines.map((line) => line.n)).toEqual(Array.from({ length: LINES }, (_, n) => n));
  });

  it("carries a service's access log: both lines of a request, written when the process exits right after it", () => {
    const run = runChild(
      `
      const app = await createApp({
        service: "svc",
        version: "1",
        config: { LOG_LEVEL: "info", BODY_LIMIT_BYTES: 1024, REQUEST_TIMEOUT_MS: 5000, CORS_ORIGINS: "*", TRUST_PROXY: false },
      });
      app.get("/thing", async () => ({ ok: true }));
      const res = await app.inject({ method: "GET", url: "/thing?code=secret", headers: { "x-request-id": "r-1" } });
      process.exit(res.statusCode === 200 ? 0 : 9);
    `,
      'const { createApp } = await import("@attesto/runtime/http");',
    );
    expect(run.status).toBe(0);
    const ofRequest = run.lines.filter((line) => line.request_id === "r-1");
    expect(ofRequest.map((line) => [line.service, line.message])).toEqual([
      ["svc", "incoming request"],
      ["svc", "request completed"],
    ]);
    expect(ofRequest[0]).toMatchObject({ req: { method: "GET", url: "/thing?code=[redacted]" } });
    expect(ofRequest[1]).toMatchObject({ res: { statusCode: 200 } });
  });

  it("writes lines logged across turns of a process that ends normally", () => {
    const run = runChild(`
      const log = createLogger("child", "info");
      log.info("first");
      await new Promise((resolve) => setImmediate(resolve));
      log.info("second");
    `);
    expect(run.status).toBe(0);
    expect(run.lines.map((line) => [line.service, line.message])).toEqual([
      ["child", "first"],
      ["child", "second"],
    ]);
  });
});
