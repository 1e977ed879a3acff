import { setTimeout as sleep } from "node:timers/promises";
import { StartupError } from "./startup-error.js";

export interface HealthTarget {
  service: string;
  url: string;
}

const RETRY_INTERVAL_MS = 100;
const REQUEST_TIMEOUT_MS = 2_000;

async function probe(url: string, service: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const body = (await response.json().catch(() => undefined)) as { status?: unknown; service?: unknown } | undefined;
    if (response.status === 200 && body?.status === "ok" && body.service === service) return undefined;
    return `HTTP ${response.status} ${JSON.stringify(body)}`;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Resolves once every target answers 200 `{status: "ok", service}` over real HTTP. */
export async function waitForHealth(
  targets: readonly HealthTarget[],
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  await Promise.all(
    targets.map(async ({ service, url }) => {
      for (;;) {
        const problem = await probe(url, service);
        if (problem === undefined) return;
        if (options.signal?.aborted) throw new StartupError("start-up interrupted");
        if (Date.now() > deadline) {
          throw new StartupError(
            `${service}: ${url} did not answer 200 within ${options.timeoutMs} ms (last: ${problem})`,
          );
        }
        await sleep(RETRY_INTERVAL_MS);
      }
    }),
  );
}
