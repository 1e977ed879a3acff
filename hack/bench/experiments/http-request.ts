import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { monotonicMicros, summarizeProfile } from "../profile.js";

/**
 * Server CPU per HTTP request through createApp (services/lib/runtime/src/http): the shared
 * factory's per-request work (request id, security headers, CORS, the request logger, hooks,
 * validation, response serialisation, RED metrics) with handlers that do nothing else, so what is
 * measured is the HTTP plumbing every service pays. Each variant is a server process of its own
 * (one createApp, CORS allow-list, metrics, `LOG_LEVEL` as given); the load generator runs here and
 * is not counted. Variants are measured in alternating rounds (A, B, A, B, ...) after a warm-up each,
 * and the medians of the rounds' µs CPU per request are printed: on a shared machine only an
 * alternating A/B says anything. A request mix of three: a JSON POST with a body and a response
 * schema and an Origin (CORS), a GET with a path parameter, a form POST with the OAuth error shape.
 *
 *   npm run bench:experiment -- http-request [variant ...] [--requests N] [--rounds N] [--concurrency N] [--log-level warn]
 *
 * A variant is `.` (this tree's runtime) or a git revision (its services/lib/runtime, extracted
 * into a scratch folder inside this tree so that it resolves this tree's node_modules). Default:
 * `main .`. Profile a variant with `node --cpu-prof --import tsx hack/bench/experiments/http-request.ts --serve <runtime dir>`.
 */
const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");
/** Where this run extracts revisions (removed at its end). */
const scratch = join(here, "..", ".http-request", String(process.pid));

const args = process.argv.slice(2);
function option(name: string, fallback: string): string {
  const at = args.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const [value] = args.splice(at, 2).slice(1);
  return value ?? fallback;
}

/** The server of one variant: prints its port, serves until killed. */
async function serve(runtimeDir: string, logLevel: string): Promise<void> {
  const { z } = await import("zod");
  const { createApp } = await import(join(runtimeDir, "src/http/index.ts"));
  const { createServiceMetrics } = await import(join(runtimeDir, "src/telemetry/index.ts"));
  const app = await createApp({
    service: "http-request",
    version: "bench",
    config: {
      LOG_LEVEL: logLevel,
      BODY_LIMIT_BYTES: 65_536,
      REQUEST_TIMEOUT_MS: 10_000,
      CORS_ORIGINS: "https://wallet.example,https://rp.example",
      TRUST_PROXY: false,
    },
    metrics: createServiceMetrics("http-request"),
    publicUrl: "http://127.0.0.1",
  });
  const thing = z.object({ id: z.string(), name: z.string(), count: z.number().int(), tags: z.array(z.string()) });
  app.post(
    "/v1/things",
    {
      schema: {
        body: z.object({ name: z.string().min(1), count: z.number().int(), tags: z.array(z.string()).max(8) }),
        response: { 201: thing },
      },
    },
    async (request: { body: { name: string; count: number; tags: string[] } }, reply: { code(n: number): void }) => {
      reply.code(201);
      return { id: "t-1", ...request.body };
    },
  );
  app.get(
    "/v1/things/:id",
    { schema: { params: z.object({ id: z.string().max(64) }), response: { 200: thing } } },
    async (request: { params: { id: string } }) => ({ id: request.params.id, name: "n", count: 1, tags: ["a"] }),
  );
  app.post(
    "/v1/token",
    {
      config: { errorShape: "oauth" },
      schema: {
        body: z.object({ grant_type: z.string(), code: z.string() }),
        response: { 200: z.object({ access_token: z.string(), token_type: z.string(), expires_in: z.number() }) },
      },
    },
    async () => ({ access_token: "a".repeat(200), token_type: "DPoP", expires_in: 300 }),
  );
  // A clean exit on SIGTERM, so that `--cpu-prof` writes its profile.
  process.once("SIGTERM", () => void app.close().then(() => process.exit(0)));
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  process.stdout.write(`${new URL(address).port}\n`);
}

/**
 * CPU seconds of every thread of a process so far, from /proc/<pid>/task/<tid>/schedstat (time on
 * a CPU in ns; /proc/<pid>/stat's ticks are 10 ms, too coarse for short alternating rounds).
 */
function cpuSeconds(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread ended meanwhile (its time is lost to this round and the next alike)
    }
  }
  return ns / 1e9;
}

interface Variant {
  name: string;
  child: ChildProcess;
  pool: Pool;
  perRequestUs: number[];
}

/** A git revision's runtime package, extracted under hack/bench/.http-request/<pid>/<rev>/ (removed at the end). */
function extract(revision: string): string {
  const target = join(scratch, revision.replace(/[^\w.-]/g, "_"));
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const archive = execFileSync("git", ["-C", repo, "archive", revision, "services/lib/runtime"], {
    maxBuffer: 64 << 20,
  });
  execFileSync("tar", ["-x", "-C", target], { input: archive });
  return join(target, "services/lib/runtime");
}

async function start(
  name: string,
  runtimeDir: string,
  logLevel: string,
  concurrency: number,
  nodeOptions: string[] = [],
): Promise<Variant> {
  const child = spawn(
    process.execPath,
    [...nodeOptions, "--import", "tsx", fileURLToPath(import.meta.url), "--serve", runtimeDir, "--log-level", logLevel],
    { stdio: ["ignore", "pipe", "inherit"], cwd: repo },
  );
  const port = await new Promise<string>((resolvePort, reject) => {
    let text = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split("\n")[0];
      if (text.includes("\n") && /^\d+$/.test(line!)) resolvePort(line!);
    });
    child.once("exit", (code) => reject(new Error(`${name}: server exited (${code})`)));
  });
  child.stdout!.resume();
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency, pipelining: 1 });
  return { name, child, pool, perRequestUs: [] };
}

const json = JSON.stringify({ name: "widget", count: 3, tags: ["a", "b"] });

/** One request of the mix (i picks which); throws on an unexpected status. */
async function request(pool: Pool, i: number): Promise<void> {
  const kind = i % 3;
  const answer =
    kind === 0
      ? await pool.request({
          method: "POST",
          path: "/v1/things",
          headers: { "content-type": "application/json", origin: "https://wallet.example", "x-api-key": "k" },
          body: json,
        })
      : kind === 1
        ? await pool.request({ method: "GET", path: `/v1/things/t-${i}` })
        : await pool.request({
            method: "POST",
            path: "/v1/token",
            headers: { "content-type": "application/x-www-form-urlencoded", dpop: "proof" },
            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Apre-authorized_code&code=abc",
          });
  await answer.body.text();
  const expected = kind === 0 ? 201 : 200;
  if (answer.statusCode !== expected) throw new Error(`status ${answer.statusCode} (request kind ${kind})`);
}

/** `count` requests, `concurrency` at a time. */
async function load(pool: Pool, count: number, concurrency: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await request(pool, next++);
    }),
  );
}

/** The q-quantile of `values` (linear between neighbours): 0.5 the median, 0.25 and 0.75 the quartiles. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.ceil(at)]! - sorted[low]!) * (at - low);
}
const median = (values: number[]) => quantile(values, 0.5);

/** `--profile <dir>`: one variant under `--cpu-prof`, the summary of its samples during `count` requests after the warm-up. */
async function profile(name: string, dir: string, logLevel: string, concurrency: number, count: number) {
  const runtimeDir = name === "." ? join(repo, "services/lib/runtime") : extract(name);
  const variant = await start(name, runtimeDir, logLevel, concurrency, ["--cpu-prof", `--cpu-prof-dir=${dir}`]);
  try {
    await load(variant.pool, 20_000, concurrency);
    const window = { startUs: monotonicMicros(), endUs: 0 };
    await load(variant.pool, count, concurrency);
    window.endUs = monotonicMicros();
    await variant.pool.close();
    const exited = new Promise((done) => variant.child.once("exit", done));
    variant.child.kill("SIGTERM");
    await exited;
    const file = readdirSync(dir)
      .filter((entry) => entry.endsWith(".cpuprofile"))
      .map((entry) => join(dir, entry))
      .map((path) => summarizeProfile(path, name, repo, window, 40))
      .sort((a, b) => b.windowMs - b.idleMs - (a.windowMs - a.idleMs))[0]!;
    const busyMs = file.windowMs - file.idleMs;
    process.stdout.write(
      `${file.file}: ${busyMs} ms busy over ${count} requests (${((busyMs * 1000) / count).toFixed(1)} µs each on the main thread)\n`,
    );
    for (const [title, rows] of [
      ["self time", file.topSelf],
      ["self time charged to the nearest caller outside node", file.topByCaller],
    ] as const) {
      process.stdout.write(`\n${title}:\n`);
      for (const row of rows)
        process.stdout.write(`  ${String(row.percent).padStart(5)} %  ${row.name}  ${row.location}\n`);
    }
    process.stdout.write("\nby area:\n");
    for (const row of file.byArea) process.stdout.write(`  ${String(row.percent).padStart(5)} %  ${row.area}\n`);
  } finally {
    variant.child.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function drive(): Promise<void> {
  const requests = Number(option("requests", "1500"));
  const rounds = Number(option("rounds", "40"));
  const concurrency = Number(option("concurrency", "8"));
  const logLevel = option("log-level", "warn");
  const verbose = args.includes("--verbose") && args.splice(args.indexOf("--verbose"), 1).length > 0;
  const profileDir = option("profile", "");
  const names = args.length > 0 ? args : profileDir ? ["."] : ["main", "."];
  const variants: Variant[] = [];
  if (profileDir) {
    await profile(names[0]!, resolve(profileDir), logLevel, concurrency, requests * rounds);
    return;
  }
  try {
    for (const name of names) {
      const dir = name === "." ? join(repo, "services/lib/runtime") : extract(name);
      variants.push(await start(name, dir, logLevel, concurrency));
    }
    for (const variant of variants) await load(variant.pool, 20_000, concurrency); // warm-up: V8 settles
    for (let round = 0; round < rounds; round++) {
      // Alternate the order too, so neither variant always runs first in a round.
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const variant of order) {
        const before = cpuSeconds(variant.child.pid!);
        await load(variant.pool, requests, concurrency);
        const used = cpuSeconds(variant.child.pid!) - before;
        variant.perRequestUs.push((used * 1e6) / requests);
      }
      if (verbose) {
        const line = variants.map((v) => `${v.name} ${v.perRequestUs.at(-1)!.toFixed(1)}`).join("  ");
        process.stdout.write(`round ${round + 1}: µs CPU per request  ${line}\n`);
      }
    }
    const first = median(variants[0]!.perRequestUs);
    process.stdout.write(
      `\nmedians over ${rounds} rounds of ${requests} requests, c=${concurrency}, LOG_LEVEL=${logLevel}:\n`,
    );
    for (const variant of variants) {
      const value = median(variant.perRequestUs);
      const change = variant === variants[0] ? "" : ` (${(((value - first) / first) * 100).toFixed(1)} %)`;
      const quartiles = `quartiles ${quantile(variant.perRequestUs, 0.25).toFixed(1)}–${quantile(variant.perRequestUs, 0.75).toFixed(1)}`;
      process.stdout.write(`  ${variant.name.padEnd(16)} ${value.toFixed(1)} µs${change}  (${quartiles})\n`);
    }
  } finally {
    for (const variant of variants) {
      await variant.pool.close().catch(() => {});
      variant.child.kill();
    }
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (args[0] === "--serve") {
  await serve(args[1] ?? join(repo, "services/lib/runtime"), option("log-level", "warn"));
} else {
  await drive();
}
