/**
 * What `npm start` costs with no traffic (`npm run bench` measures it after the load levels;
 * `npm run bench:footprint` alone, with the first start and the warm start too). Starts it as a
 * user does (`npm start`, embedded database, a fresh data folder) and measures the time to its
 * "Attesto ready" line: with `full`, first after removing dist/start (as on a fresh checkout or
 * after a source change: the compile included, see hack/build/start.mjs); otherwise a first start
 * only compiles what is stale. Then cold (another empty data folder, so database creation,
 * migrations and secrets included), and with `full` warm (stopped and started again on the same
 * folder). Then the library peer is started the same way (time to /health). After settling, the
 * idle RSS and PSS of each whole process tree (npm, the shell, node and the embedded PostgreSQL
 * server's processes; the peer's one process) and their idle CPU over the same window: CPU
 * seconds from /proc, so other load on the machine barely skews it, also in % of one core.
 *
 * BENCH_FOOTPRINT_SETTLE_SECONDS (default 30) and BENCH_FOOTPRINT_IDLE_SECONDS (default 30, the
 * length of one idle window; up to five are measured until two in a row agree).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { loadAverage, machineFacts } from "./proc-stats.js";
import { table } from "./report.js";
import { benchDataDir, repoRoot, startLibraryPeer } from "./topology.js";

const env = process.env;
/**
 * 21700: ports 29781..29788 and 30781..30788 (the peer 29790), clear of the test suites and of the
 * bench's load levels (21500).
 */
const PORT_OFFSET = Number(env.BENCH_PORT_OFFSET ?? 21_700);
/**
 * Idle means after start-up has settled: in the first ~30 s after ready the process still uses
 * ~4 % of a core (V8 optimizing the JavaScript, start-up garbage collected); about a minute after
 * ready V8's memory reducer runs its full collections once (~0.5 CPU seconds). After the settle,
 * 30-s windows follow one another until two in a row agree (`steady`); the last one is reported.
 */
const SETTLE_SECONDS = Number(env.BENCH_FOOTPRINT_SETTLE_SECONDS ?? 30);
const IDLE_SECONDS = Number(env.BENCH_FOOTPRINT_IDLE_SECONDS ?? 30);
/** At most this many idle windows are measured while waiting for two in a row to agree. */
const IDLE_MAX_WINDOWS = 5;
/** Two idle windows agree when their CPU differs by at most this share of one core (0.2 %). */
const STEADY_CPU_SHARE = 0.002;
const READY_TIMEOUT_MS = 120_000;
const TICKS_PER_SECOND = 100;

/** The last two idle windows differ by no more than STEADY_CPU_SHARE of one core. */
function steady(windows: ReadonlyArray<{ cpuSeconds: number }>): boolean {
  if (windows.length < 2) return false;
  const [previous, last] = windows.slice(-2) as [{ cpuSeconds: number }, { cpuSeconds: number }];
  return Math.abs(last.cpuSeconds - previous.cpuSeconds) <= STEADY_CPU_SHARE * IDLE_SECONDS;
}

/** The process and every descendant (by parent pid, from /proc). */
function treeOf(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, parent] of parentOf) if (parent === tree[i]) tree.push(pid);
  }
  return tree;
}

function usageOf(pids: number[]) {
  let cpuSeconds = 0;
  let rssKb = 0;
  let pssKb = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // utime + stime, and cutime + cstime: a child that exits and is reaped (a PostgreSQL backend
      // whose connection closed) moves its CPU into its parent's, so the tree's sum never drops.
      cpuSeconds +=
        (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      rssKb += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pssKb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return { cpuSeconds, rssMb: Math.round(rssKb / 1024), pssMb: Math.round(pssKb / 1024) };
}

async function start(dataDir: string): Promise<{ child: ChildProcess; readyMs: number; output: () => string }> {
  const started = performance.now();
  const child = spawn("npm", ["start"], {
    cwd: repoRoot,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...env,
      ATTESTO_DATA_DIR: dataDir,
      PORT_OFFSET: String(PORT_OFFSET),
      DATABASE_URL: "",
      LOG_LEVEL: env.BENCH_LOG_LEVEL ?? "warn",
    },
  });
  let output = "";
  const readyMs = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start was not ready within ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-20_000);
      if (output.includes("Attesto ready in")) {
        clearTimeout(timer);
        resolve(performance.now() - started);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  return { child, readyMs: Math.round(readyMs), output: () => output };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid!, "SIGTERM");
  const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 30_000);
  await exited;
  clearTimeout(timer);
  // Let the process group finish after npm itself exited.
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(-child.pid!, 0);
    } catch {
      return;
    }
    await sleep(100);
  }
}

export interface Footprint {
  firstStartMs: number;
  coldStartMs: number;
  warmStartMs?: number;
  idleRssMb: number;
  idlePssMb: number;
  idleCpuSeconds: number;
  idleCpuPercent: number;
  peer: { startMs: number; idleRssMb: number; idlePssMb: number; idleCpuPercent: number };
  settleSeconds: number;
  idleSeconds: number;
  /** Idle CPU of each window measured, % of one core: the last is reported (see `steady`). */
  idleWindows: number[];
  processes: Array<{ pid: number; command: string; cpuSeconds: number; rssMb: number; pssMb: number }>;
}

const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, 3).join(" ").slice(0, 80);
  } catch {
    return "?";
  }
};

/** `full`: the first start after removing dist/start, and a warm start; otherwise cold start and idle only. */
export async function measureFootprint(full: boolean): Promise<Footprint> {
  process.stdout.write(`\n== npm start footprint (settle ${SETTLE_SECONDS} s, idle window ${IDLE_SECONDS} s)\n`);
  const firstDataDir = benchDataDir("attesto-footprint-");
  const dataDir = benchDataDir("attesto-footprint-");
  try {
    if (full) rmSync(join(repoRoot, "dist", "start"), { recursive: true, force: true });
    const first = await start(firstDataDir);
    await stop(first.child);
    const cold = await start(dataDir);
    let running = cold;
    let warmStartMs: number | undefined;
    if (full) {
      await stop(cold.child);
      running = await start(dataDir);
      warmStartMs = running.readyMs;
    }
    const peerStarted = performance.now();
    const peer = await startLibraryPeer(8090 + PORT_OFFSET);
    const peerStartMs = Math.round(performance.now() - peerStarted);
    try {
      await sleep(SETTLE_SECONDS * 1000);
      const pids = treeOf(running.child.pid!);
      const percent = (seconds: number) => Math.round((seconds / IDLE_SECONDS) * 1000) / 10;
      // Idle is the steady state: windows follow one another until two in a row agree (as the
      // load levels' warm-up does), so a one-off after start-up (V8's memory reducer running its
      // full collections about a minute after ready) is not reported as what idling costs.
      const windows: Array<{ cpuSeconds: number; peerCpuSeconds: number }> = [];
      let after = usageOf(treeOf(running.child.pid!));
      let peerAfter = usageOf([peer.pid]);
      let before = after;
      let peerBefore = peerAfter;
      do {
        before = after;
        peerBefore = peerAfter;
        await sleep(IDLE_SECONDS * 1000);
        after = usageOf(treeOf(running.child.pid!));
        peerAfter = usageOf([peer.pid]);
        windows.push({
          cpuSeconds: after.cpuSeconds - before.cpuSeconds,
          peerCpuSeconds: peerAfter.cpuSeconds - peerBefore.cpuSeconds,
        });
      } while (windows.length < IDLE_MAX_WINDOWS && !steady(windows));
      process.stdout.write(
        `idle CPU per ${IDLE_SECONDS}-s window, % of one core: ${windows.map((w) => percent(w.cpuSeconds)).join(", ")}` +
          `${steady(windows) ? "" : ` (not steady after ${IDLE_MAX_WINDOWS} windows: the last reported)`}\n`,
      );
      const result: Footprint = {
        firstStartMs: first.readyMs,
        coldStartMs: cold.readyMs,
        ...(warmStartMs === undefined ? {} : { warmStartMs }),
        idleRssMb: after.rssMb,
        idlePssMb: after.pssMb,
        idleCpuSeconds: Math.round((after.cpuSeconds - before.cpuSeconds) * 100) / 100,
        idleCpuPercent: percent(after.cpuSeconds - before.cpuSeconds),
        peer: {
          startMs: peerStartMs,
          idleRssMb: peerAfter.rssMb,
          idlePssMb: peerAfter.pssMb,
          idleCpuPercent: percent(peerAfter.cpuSeconds - peerBefore.cpuSeconds),
        },
        settleSeconds: SETTLE_SECONDS,
        idleSeconds: IDLE_SECONDS,
        idleWindows: windows.map((w) => percent(w.cpuSeconds)),
        processes: pids.map((pid) => ({ pid, command: commandOf(pid), ...usageOf([pid]) })),
      };
      process.stdout.write(
        `npm start: cold start ${(result.coldStartMs / 1000).toFixed(1)} s, idle PSS ${result.idlePssMb} MiB ` +
          `(RSS sum ${result.idleRssMb} MiB), idle CPU ${result.idleCpuPercent} %; peer: start ` +
          `${(peerStartMs / 1000).toFixed(1)} s, idle PSS ${result.peer.idlePssMb} MiB, idle CPU ${result.peer.idleCpuPercent} %\n`,
      );
      return result;
    } finally {
      await peer.stop();
      await stop(running.child);
    }
  } finally {
    rmSync(firstDataDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `npm run bench:footprint`: the full footprint as a table, and bench-footprint.json. */
export async function printFootprint() {
  const loadAtStart = loadAverage();
  const result = await measureFootprint(true);
  const machine = { ...machineFacts(), loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAverage() };
  writeFileSync("bench-footprint.json", `${JSON.stringify({ machine, ...result }, null, 2)}\n`);
  process.stdout.write(
    `Machine: ${machine.cores} cores (${machine.cpu}), Node ${machine.node}; load average ${machine.loadAverageAtStart.join(" ")} at start, ${machine.loadAverageAtEnd.join(" ")} at end\n\n`,
  );
  process.stdout.write(
    `${table(
      ["npm start (embedded database)", "value"],
      [
        ["first start to ready (compile + empty data folder), s", (result.firstStartMs / 1000).toFixed(1)],
        ["cold start to ready (empty data folder), s", (result.coldStartMs / 1000).toFixed(1)],
        ["warm start to ready (same folder), s", ((result.warmStartMs ?? 0) / 1000).toFixed(1)],
        ["idle RSS, whole process tree, MiB (sum; shared pages counted per process)", result.idleRssMb],
        ["idle PSS, whole process tree, MiB (shared pages split)", result.idlePssMb],
        [`idle CPU over ${IDLE_SECONDS} s, CPU seconds`, result.idleCpuSeconds],
        [`idle CPU over ${IDLE_SECONDS} s, % of one core`, result.idleCpuPercent],
      ],
    )}\n\n${table(
      ["process", "RSS MiB", "PSS MiB"],
      result.processes.map((p) => [`${p.pid} ${p.command}`, p.rssMb, p.pssMb]),
    )}\nwrote bench-footprint.json\n`,
  );
}
