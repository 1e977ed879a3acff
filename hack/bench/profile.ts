import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** A V8 CPU profile as `node --cpu-prof` writes it (times in µs of CLOCK_MONOTONIC). */
interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A window of CLOCK_MONOTONIC time in µs: `process.hrtime.bigint() / 1000n` in any process. */
export interface ProfileWindow {
  startUs: number;
  endUs: number;
}

export const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

export interface FunctionTime {
  name: string;
  /** Where: file:line (package path for node_modules, repo path for our code). */
  location: string;
  ms: number;
  percent: number;
}

export interface ProfileSummary {
  service: string;
  file: string;
  /** Sampled time inside the window, and how much of it the process was idle (waiting for I/O). */
  windowMs: number;
  idleMs: number;
  /** Self time per function (percent of busy time). */
  topSelf: FunctionTime[];
  /**
   * Self time of node internals and natives charged to the nearest JavaScript caller outside node
   * (a library or our code): shows WHO pays for crypto, sockets and key imports.
   */
  topByCaller: FunctionTime[];
  /** Inclusive time of the services' own functions (each function counted once per stack). */
  topAttestoInclusive: FunctionTime[];
  /** Self time grouped by package or area. */
  byArea: Array<{ area: string; ms: number; percent: number }>;
}

interface Frame {
  name: string;
  location: string;
  area: string;
  /** A frame of node internals, V8 natives or pseudo-frames (GC, program): charged to its caller. */
  internal: boolean;
  attesto: boolean;
}

function describeFrame(callFrame: CpuProfile["nodes"][number]["callFrame"], root: string): Frame {
  const { functionName, url, lineNumber } = callFrame;
  const name = functionName || "(anonymous)";
  if (!url) {
    const pseudo = name.startsWith("(");
    return { name, location: "", area: pseudo ? name : "native", internal: true, attesto: false };
  }
  if (url.startsWith("node:")) {
    const parts = url.slice(5).split("/");
    const area = parts[0] === "internal" ? `node:internal/${parts[1] ?? ""}` : `node:${parts[0]}`;
    return { name, location: `${url}:${lineNumber + 1}`, area, internal: true, attesto: false };
  }
  const path = url.replace(/^file:\/\//, "");
  const modules = path.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const inside = path.slice(modules + "node_modules/".length);
    const segments = inside.split("/");
    const area = segments[0]!.startsWith("@") ? `${segments[0]}/${segments[1]}` : segments[0]!;
    return { name, location: `${inside}:${lineNumber + 1}`, area, internal: false, attesto: false };
  }
  // Compiled runs (BENCH_RUNTIME=compiled) execute dist/bench/services/...: report the source path.
  const inRepo = relative(root, path)
    .replace(/^dist\/bench\//, "")
    .replace(/\.js$/, ".ts");
  const match = /^services\/(lib\/)?([^/]+)/.exec(inRepo);
  return {
    name,
    location: `${inRepo}:${lineNumber + 1}`,
    area: match ? `@attesto/${match[2]}` : inRepo,
    internal: false,
    attesto: match !== null,
  };
}

function top(map: Map<string, { name: string; location: string; us: number }>, busyUs: number, count: number) {
  return [...map.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, count)
    .map(({ name, location, us }) => ({
      name,
      location,
      ms: Math.round(us / 1000),
      percent: Math.round((us / busyUs) * 1000) / 10,
    }));
}

/** Summarizes the samples of one profile that fall inside `window` (the whole profile without one). */
export function summarizeProfile(
  path: string,
  service: string,
  root: string,
  window?: ProfileWindow,
  count = 25,
): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const frames = new Map(profile.nodes.map((node) => [node.id, describeFrame(node.callFrame, root)]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stackOf = new Map<number, number[]>();
  const stack = (id: number): number[] => {
    let cached = stackOf.get(id);
    if (!cached) {
      cached = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) cached.push(at);
      stackOf.set(id, cached);
    }
    return cached;
  };

  const self = new Map<string, { name: string; location: string; us: number }>();
  const byCaller = new Map<string, { name: string; location: string; us: number }>();
  const inclusive = new Map<string, { name: string; location: string; us: number }>();
  const areas = new Map<string, number>();
  const add = (map: typeof self, frame: Frame, us: number) => {
    const key = `${frame.name}@${frame.location}`;
    const entry = map.get(key) ?? { name: frame.name, location: frame.location, us: 0 };
    entry.us += us;
    map.set(key, entry);
  };
  let time = profile.startTime;
  let windowUs = 0;
  let idleUs = 0;
  for (const [index, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[index] ?? 0;
    time += delta;
    if (window && (time < window.startUs || time > window.endUs)) continue;
    windowUs += delta;
    const frame = frames.get(id)!;
    if (frame.name === "(idle)") {
      idleUs += delta;
      continue;
    }
    add(self, frame, delta);
    areas.set(frame.area, (areas.get(frame.area) ?? 0) + delta);
    const ids = stack(id);
    const caller = ids.map((at) => frames.get(at)!).find((candidate) => !candidate.internal);
    add(byCaller, caller ?? frame, delta);
    const seen = new Set<string>();
    for (const at of ids) {
      const candidate = frames.get(at)!;
      const key = `${candidate.name}@${candidate.location}`;
      if (!candidate.attesto || seen.has(key)) continue;
      seen.add(key);
      add(inclusive, candidate, delta);
    }
  }
  const busyUs = windowUs - idleUs || 1;
  return {
    service,
    file: relative(root, path),
    windowMs: Math.round(windowUs / 1000),
    idleMs: Math.round(idleUs / 1000),
    topSelf: top(self, busyUs, count),
    topByCaller: top(byCaller, busyUs, count),
    topAttestoInclusive: top(inclusive, busyUs, count),
    byArea: [...areas]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([area, us]) => ({ area, ms: Math.round(us / 1000), percent: Math.round((us / busyUs) * 1000) / 10 })),
  };
}

/**
 * The profile of each service's main thread, from `dir/<service>/*.cpuprofile` (node writes one per
 * thread; the busiest in the window served the requests, the others are module-loader threads).
 */
export function summarizeProfiles(dir: string, root: string, window?: ProfileWindow): ProfileSummary[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const summaries = readdirSync(join(dir, entry.name))
        .filter((file) => file.endsWith(".cpuprofile"))
        .map((file) => summarizeProfile(join(dir, entry.name, file), entry.name, root, window));
      const busiest = summaries.sort((a, b) => b.windowMs - b.idleMs - (a.windowMs - a.idleMs))[0];
      return busiest ? [busiest] : [];
    });
}
