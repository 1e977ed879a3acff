import { readFileSync } from "node:fs";
import { startEmbeddedPostgres, startEmbeddedPostgresThread } from "@attesto/store";
import { sql } from "kysely";
import { mainThreadUs, openBenchItems } from "./bench-items.js";

/**
 * CPU per statement of one parameterised indexed read through `openDatabase` (kysely), as the
 * services send it. `pg` (DATABASE_URL): the PostgreSQL backend's CPU from /proc/<backend>/stat,
 * and this process's; `embedded`: this process's CPU, PGlite and its wire server included (on
 * this thread here); `embedded-thread`: the same with the database on its own thread, as the
 * all-in-one runs it, split into this (main) thread's CPU and the rest of the process (the
 * database thread, and V8's and libuv's helpers). `tcp` serves the embedded database on loopback
 * TCP instead of its default Unix socket. `concurrency` reads are kept in flight on as many pool
 * connections (default 1). Run it in two trees to compare them.
 *
 *   npm run bench:experiment -- statement-cpu pg|embedded|embedded-thread [statements] [tcp] [concurrency]
 */
const mode = (["embedded", "embedded-thread"] as const).find((m) => m === process.argv[2]) ?? "pg";
const count = Number(process.argv[3] ?? 20_000);
const transport = process.argv[4] === "tcp" ? { host: "127.0.0.1" } : {};
const concurrency = Number(process.argv[5] ?? 1);
const start = mode === "embedded" ? startEmbeddedPostgres : startEmbeddedPostgresThread;
const embedded = mode === "pg" ? undefined : await start(transport);
const url = embedded?.url ?? process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is not set");
const items = await openBenchItems(url, concurrency);
const { db, reads } = items;
const backendPid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]?.pid;
const ticks = () => {
  if (mode !== "pg") return 0;
  const fields = readFileSync(`/proc/${backendPid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return Number(fields[11]) + Number(fields[12]); // utime + stime, clock ticks (1/100 s)
};
await reads(1000);
const backendBefore = ticks();
const mainBefore = mainThreadUs();
const cpuBefore = process.cpuUsage();
const startedAt = performance.now();
await reads(count);
const elapsedMs = performance.now() - startedAt;
const cpu = process.cpuUsage(cpuBefore);
const mainUs = (mainThreadUs() - mainBefore) / count;
const backendUs = ((ticks() - backendBefore) * 10_000) / count;
const processUs = (cpu.user + cpu.system) / count;
const rate = `${Math.round((count * 1000) / elapsedMs)}/s`;
const setting = `${count}, c=${concurrency}, ${url.includes("%2F") ? "unix socket" : "tcp"}`;
console.log(
  mode === "pg"
    ? `pg: backend ${backendUs.toFixed(1)} µs, this process ${processUs.toFixed(1)} µs CPU per statement (${count})`
    : mode === "embedded"
      ? `embedded: this process (PGlite included) ${processUs.toFixed(1)} µs CPU per statement, ${rate} (${setting})`
      : `embedded-thread: process ${processUs.toFixed(1)} µs = main thread ${mainUs.toFixed(1)} + database thread and helpers ${(processUs - mainUs).toFixed(1)} µs CPU per statement, ${rate} (${setting})`,
);
await items.close();
await embedded?.close();
