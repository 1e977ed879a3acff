import type { Flow } from "./flows.js";
import { type LevelResult, runLevel } from "./runner.js";

/**
 * Warm-up until V8 has finished optimising (issue 28 item 6): the flow runs in windows of
 * `windowSeconds` at the measured concurrency, and the CPU per flow of every window is read from
 * /proc. While V8 still compiles and re-optimises, CPU per flow falls from window to window (the
 * compiler threads' work is part of the process's CPU); once two consecutive windows differ by
 * less than `tolerance`, the code has settled and measuring starts. `maxSeconds` caps it: a run
 * that never settles says so in its report instead of waiting forever. Attesto and the library
 * peer are warmed the same way.
 */
export interface WarmUpSettings {
  windowSeconds: number;
  /** Relative change of CPU per flow between two consecutive windows below which the flow counts as warm. */
  tolerance: number;
  maxSeconds: number;
}

export interface WarmUpWindow {
  flows: number;
  errors: number;
  cpuMsPerFlow: number;
  /** BENCH_TRACE_OPT=1: functions V8 finished optimising, and deoptimisations, in this window. */
  v8?: { optimised: number; deoptimised: number };
}

export interface WarmUpResult {
  flow: string;
  concurrency: number;
  windows: WarmUpWindow[];
  /** Whether the last two windows were within the tolerance (otherwise the cap ended it). */
  settled: boolean;
  /** Relative change of CPU per flow between the last two windows. */
  lastChange: number;
  errors: number;
  errorSamples: LevelResult["errorSamples"];
}

/** CPU seconds of the measured processes over a window: start returns a stop function. */
export type CpuWindow = () => Promise<() => Promise<number>>;

export async function warmUp(
  flow: Flow,
  concurrency: number,
  settings: WarmUpSettings,
  cpuWindow: CpuWindow,
  v8Events: () => { optimised: number; deoptimised: number } | undefined,
): Promise<WarmUpResult> {
  const windows: WarmUpWindow[] = [];
  const errorSamples: LevelResult["errorSamples"] = [];
  let lastChange = Number.NaN;
  const maxWindows = Math.max(2, Math.ceil(settings.maxSeconds / settings.windowSeconds));
  while (windows.length < maxWindows) {
    const stop = await cpuWindow();
    const v8Before = v8Events();
    const level = await runLevel(flow, concurrency, settings.windowSeconds);
    const cpuSeconds = await stop();
    const v8After = v8Events();
    windows.push({
      flows: level.flows,
      errors: level.errors,
      cpuMsPerFlow: level.flows > 0 ? Math.round((cpuSeconds / level.flows) * 10_000) / 10 : Number.NaN,
      ...(v8Before && v8After
        ? {
            v8: {
              optimised: v8After.optimised - v8Before.optimised,
              deoptimised: v8After.deoptimised - v8Before.deoptimised,
            },
          }
        : {}),
    });
    errorSamples.push(...level.errorSamples);
    const [previous, last] = windows.slice(-2).map((window) => window.cpuMsPerFlow);
    if (windows.length >= 2 && previous! > 0) {
      lastChange = Math.abs(last! - previous!) / previous!;
      if (lastChange < settings.tolerance) break;
    }
  }
  return {
    flow: flow.name,
    concurrency,
    windows,
    settled: lastChange < settings.tolerance,
    lastChange: Math.round(lastChange * 1000) / 1000,
    errors: windows.reduce((sum, window) => sum + window.errors, 0),
    errorSamples: errorSamples.slice(0, 10),
  };
}

/** One line for the run's output: windows, CPU per flow of each, and whether it settled. */
export function describeWarmUp(result: WarmUpResult): string {
  const cpu = result.windows.map((window) => window.cpuMsPerFlow.toFixed(1)).join(" → ");
  const verdict = result.settled
    ? `settled (last change ${(result.lastChange * 100).toFixed(1)} %)`
    : `NOT settled at the cap (last change ${(result.lastChange * 100).toFixed(1)} %)`;
  const v8 = result.windows.every((window) => window.v8)
    ? `; V8 optimised/deoptimised per window ${result.windows.map((window) => `${window.v8!.optimised}/${window.v8!.deoptimised}`).join(" → ")}`
    : "";
  return `warm-up ${result.flow} @ ${result.concurrency}: ${result.windows.length} windows, CPU ms/flow ${cpu}; ${verdict}, ${result.errors} errors${v8}`;
}
