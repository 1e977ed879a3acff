import { once } from "node:events";
import { Worker } from "node:worker_threads";
import type { EmbeddedPostgres, EmbeddedPostgresOptions } from "./embedded.js";

/** The worker module beside this one. */
const siblingUrl = (extension: string) => new URL(`./embedded-thread-worker${extension}`, import.meta.url).href;

/**
 * startEmbeddedPostgres on a thread of its own: PGlite runs PostgreSQL in WASM, synchronously, so
 * on the services' thread every statement would hold their event loop; on its own thread the
 * database uses another core while the services answer requests. Clients reach it over the same
 * wire protocol (`url`). The worker is this module's sibling: `.js` when compiled, `.ts` from the
 * sources, where the thread first registers tsx (a worker does not inherit the `--import` hooks).
 */
export async function startEmbeddedPostgresThread(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const worker = import.meta.url.endsWith(".ts")
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
          .then(({ register }) => { register(); return import(${JSON.stringify(siblingUrl(".ts"))}); })`,
        { eval: true, workerData: options },
      )
    : new Worker(new URL(siblingUrl(".js")), { workerData: options });
  const exited = once(worker, "exit");
  let answer: { url?: string; error?: string };
  try {
    answer = await Promise.race([
      once(worker, "message").then(([message]) => message as { url?: string; error?: string }),
      once(worker, "error").then(([error]) => ({ error: error instanceof Error ? error.message : String(error) })),
      exited.then(([code]) => ({ error: `the database thread exited (code ${code}) before it was ready` })),
    ]);
  } catch (error) {
    answer = { error: error instanceof Error ? error.message : String(error) };
  }
  if (!answer.url) {
    await worker.terminate();
    throw new Error(answer.error ?? "the database thread did not start");
  }
  return {
    url: answer.url,
    async close() {
      worker.postMessage("close");
      await exited;
    },
  };
}
