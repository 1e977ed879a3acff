import { parentPort, workerData } from "node:worker_threads";
import { type EmbeddedPostgres, type EmbeddedPostgresOptions, startEmbeddedPostgres } from "./embedded.js";

/**
 * The embedded database's thread (see embedded-thread.ts): starts PGlite and its wire server with
 * the options it was given, answers `{url}` (or `{error}`), and closes both on "close".
 */
const port = parentPort;
if (!port) throw new Error("embedded-thread-worker runs as a worker thread only");

let database: EmbeddedPostgres | undefined;
port.on("message", async (message: unknown) => {
  if (message !== "close") return;
  await database?.close();
  port.close();
});
try {
  database = await startEmbeddedPostgres(workerData as EmbeddedPostgresOptions);
  port.postMessage({ url: database.url });
} catch (error) {
  port.postMessage({ error: error instanceof Error ? error.message : String(error) });
  port.close();
}
