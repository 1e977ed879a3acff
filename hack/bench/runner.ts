import { performance } from "node:perf_hooks";
import type { Flow, StepRecorder } from "./flows.js";
import { HttpClient, HttpError } from "./http.js";

export interface Percentiles {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export interface LevelResult {
  flow: string;
  concurrency: number;
  durationSeconds: number;
  flows: number;
  flowsPerSecond: number;
  flowLatencyMs: Percentiles;
  stepLatencyMs: Record<string, Percentiles>;
  errors: number;
  /** Distinct error messages with their counts (the first 10). */
  errorSamples: Array<{ message: string; count: number }>;
}

const round = (value: number) => Math.round(value * 10) / 10;

/** Exact percentiles (nearest rank) of a sample, in ms. */
export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { count: 0, p50: 0, p95: 0, p99: 0, max: 0, mean: 0 };
  const sorted = Float64Array.from(values).sort();
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return {
    count: values.length,
    p50: round(rank(50)),
    p95: round(rank(95)),
    p99: round(rank(99)),
    max: round(sorted[sorted.length - 1]!),
    mean: round(mean),
  };
}

function describeError(error: unknown): string {
  if (error instanceof HttpError) return error.message.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<uuid>").slice(0, 240);
  return (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 240);
}

/**
 * A closed loop: `concurrency` workers each run the flow back to back until the deadline, over
 * one HTTP client whose pools hold `concurrency` connections per origin. Flows under way at the
 * deadline finish and count; the rate divides by the time until the last one finished.
 */
export async function runLevel(flow: Flow, concurrency: number, durationSeconds: number): Promise<LevelResult> {
  const http = new HttpClient(concurrency);
  const stepTimes = new Map<string, number[]>(flow.steps.map((name) => [name, []]));
  const flowTimes: number[] = [];
  const errors = new Map<string, number>();
  let errorCount = 0;
  const step: StepRecorder = async (name, run) => {
    const started = performance.now();
    const result = await run();
    stepTimes.get(name)?.push(performance.now() - started);
    return result;
  };
  const started = performance.now();
  const deadline = started + durationSeconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const flowStarted = performance.now();
      try {
        await flow.run(http, step);
        flowTimes.push(performance.now() - flowStarted);
      } catch (error) {
        errorCount++;
        const message = describeError(error);
        errors.set(message, (errors.get(message) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedSeconds = (performance.now() - started) / 1000;
  await http.close();
  return {
    flow: flow.name,
    concurrency,
    durationSeconds: Math.round(elapsedSeconds * 100) / 100,
    flows: flowTimes.length,
    flowsPerSecond: Math.round((flowTimes.length / elapsedSeconds) * 10) / 10,
    flowLatencyMs: percentiles(flowTimes),
    stepLatencyMs: Object.fromEntries([...stepTimes].map(([name, values]) => [name, percentiles(values)])),
    errors: errorCount,
    errorSamples: [...errors]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([message, count]) => ({ message, count })),
  };
}
