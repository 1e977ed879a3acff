import { type EmbeddedPostgres, startEmbeddedPostgresThread } from "@attesto/store";
import { mainThreadUs, openBenchItems } from "./bench-items.js";

/**
 * CPU per statement of the embedded database on its own thread (as the all-in-one runs it) over
 * loopback TCP against its Unix socket, in one process: two database threads, one per transport,
 * and blocks of reads alternating between them (A, B, A, B, ...), so both see the same machine
 * load. Per transport: the process's CPU (every thread) per statement, split into this (main)
 * thread, where `pg` writes and parses, and the rest (the database thread, V8's and libuv's
 * helpers). The read is statement-cpu.ts's: one parameterised indexed read through kysely.
 *
 *   npm run bench:experiment -- statement-cpu-transport [blocks] [statements per block] [concurrency]
 */
const blocks = Number(process.argv[2] ?? 10);
const perBlock = Number(process.argv[3] ?? 4000);
const concurrency = Number(process.argv[4] ?? 1);

async function side(name: string, server: EmbeddedPostgres) {
  const items = await openBenchItems(server.url, concurrency);
  const { reads } = items;
  const totals = { processUs: 0, mainUs: 0, ms: 0, statements: 0 };
  return {
    name,
    totals,
    warm: () => reads(1000),
    async block() {
      const main = mainThreadUs();
      const cpu = process.cpuUsage();
      const started = performance.now();
      await reads(perBlock);
      totals.ms += performance.now() - started;
      const used = process.cpuUsage(cpu);
      totals.processUs += used.user + used.system;
      totals.mainUs += mainThreadUs() - main;
      totals.statements += perBlock;
    },
    async close() {
      await items.close();
      await server.close();
    },
  };
}

const tcp = await side("tcp", await startEmbeddedPostgresThread({ host: "127.0.0.1" }));
const unixServer = await startEmbeddedPostgresThread();
if (!unixServer.url.includes("@%2F")) throw new Error(`no Unix socket here: ${unixServer.url}`);
const unix = await side("unix socket", unixServer);
for (const s of [tcp, unix]) await s.warm();
for (let i = 0; i < blocks; i++) {
  // Alternate which goes first, so neither always follows the other's garbage.
  for (const s of i % 2 === 0 ? [tcp, unix] : [unix, tcp]) await s.block();
}
for (const { name, totals } of [tcp, unix]) {
  const per = (us: number) => (us / totals.statements).toFixed(1);
  console.log(
    `${name.padEnd(11)}: process ${per(totals.processUs)} µs = main thread ${per(totals.mainUs)} + database thread and helpers ${per(totals.processUs - totals.mainUs)} µs CPU per statement, ${Math.round((totals.statements * 1000) / totals.ms)}/s (${totals.statements}, c=${concurrency})`,
  );
}
await tcp.close();
await unix.close();
