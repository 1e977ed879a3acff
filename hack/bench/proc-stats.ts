import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

export interface ProcessSample {
  /** User + system CPU time so far, in seconds. */
  cpuSeconds: number;
  /** Resident set size now, in MB. */
  rssMb: number;
  /** Peak resident set size over the process's life (VmHWM), in MB. */
  hwmMb: number;
}

/** Fields of /proc/<pid>/stat after the command name (which may contain spaces). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * Children of every process, by parent pid, from one scan of /proc (about 12 ms for 170 processes on
 * the 2-core VM: build it once per sample, not once per process, since it runs on the load
 * generator's event loop).
 */
export function processTree(): Map<number, number[]> {
  const childrenOf = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = Number(statFields(Number(entry))[1]);
      childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  return childrenOf;
}

/** Every descendant of `root` in `childrenOf`. */
function descendantsOf(root: number, childrenOf: Map<number, number[]>): number[] {
  const found: number[] = [];
  for (const queue = [root]; queue.length > 0; ) {
    const next = childrenOf.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/** CPU seconds of one process alone (utime + stime + reaped children), without scanning for live descendants. */
export const ownCpuSeconds = (pid: number) => cpuTicks(statFields(pid)) / TICKS_PER_SECOND;

/** utime + stime + cutime + cstime: the process's own CPU and that of the children it has reaped. */
function cpuTicks(fields: string[]): number {
  return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
}

/**
 * CPU time and memory of a process (and its threads), from /proc. Linux only. CPU includes its
 * descendants, live ones and those already reaped: the native embedded PostgreSQL server and its
 * backends are child processes of the all-in-one. RSS is the process's own.
 */
export function sampleProcess(pid: number, childrenOf = processTree()): ProcessSample {
  let ticks = cpuTicks(statFields(pid));
  for (const child of descendantsOf(pid, childrenOf)) {
    try {
      ticks += cpuTicks(statFields(child));
    } catch {
      // ended (and reaped: its time is now in its parent's cutime/cstime)
    }
  }
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return {
    cpuSeconds: ticks / TICKS_PER_SECOND,
    rssMb: Math.round(kb("VmRSS") / 1024),
    hwmMb: Math.round(kb("VmHWM") / 1024),
  };
}

export interface ProcessWindow {
  cpuSeconds: number;
  peakRssMb: number;
}

/**
 * Watches processes over a window: CPU seconds spent in it and the peak RSS seen (sampled every
 * `intervalMs`; VmHWM covers the whole life, so the window's own peak comes from sampling).
 */
export function watchProcesses(pids: Map<string, number>, intervalMs = 200) {
  const start = new Map<string, ProcessSample>();
  const peak = new Map<string, number>();
  const sample = () => {
    const tree = processTree();
    for (const [name, pid] of pids) {
      try {
        const now = sampleProcess(pid, tree);
        peak.set(name, Math.max(peak.get(name) ?? 0, now.rssMb));
      } catch {
        // The process ended; its last samples stand.
      }
    }
  };
  const firstTree = processTree();
  for (const [name, pid] of pids) {
    const first = sampleProcess(pid, firstTree);
    start.set(name, first);
    peak.set(name, first.rssMb);
  }
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    stop(): Map<string, ProcessWindow> {
      clearInterval(timer);
      sample();
      const result = new Map<string, ProcessWindow>();
      const tree = processTree();
      for (const [name, pid] of pids) {
        let cpuSeconds = 0;
        try {
          cpuSeconds = sampleProcess(pid, tree).cpuSeconds - start.get(name)!.cpuSeconds;
        } catch {
          cpuSeconds = Number.NaN;
        }
        result.set(name, { cpuSeconds: Math.round(cpuSeconds * 100) / 100, peakRssMb: peak.get(name)! });
      }
      return result;
    },
  };
}

/** CPU seconds this process (the load generator) has used so far. */
export const selfCpuSeconds = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

export function machineFacts() {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu: cpus[0]?.model ?? "unknown",
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
  };
}

export const loadAverage = () => os.loadavg().map((value) => Math.round(value * 100) / 100);
