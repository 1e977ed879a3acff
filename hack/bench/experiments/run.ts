/**
 * `npm run bench:experiment -- <name> [arguments]`: one of the single-lever experiments in this
 * folder, each a script that measures one cost in isolation (see each file's header and
 * ../README.md, "Experiments"). Not part of `npm run bench`; kept for re-measuring a lever.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const EXPERIMENTS: Record<string, string> = {
  "cache-barrier":
    "a coherent cache's barrier: one round trip (SELECT 1 against Sync), trips per request (per read, since)",
  ceiling: "in-process crypto ceiling of each flow (no HTTP, no database)",
  "embedded-statement-cost": "CPU per execution of the hot statements on PGlite in process",
  "http-request": "server CPU per HTTP request through createApp, variants (git revisions, this tree) A/B",
  "jws-ops": "CPU per JWS sign, verify and key import: jose (WebCrypto) against keys/jws.ts (node:crypto)",
  "kysely-statements": "kysely's CPU per statement (build, schema transform, compile, execute)",
  "rpc-call": "CPU per internal call, in-process against h2c",
  "statement-cpu": "CPU per indexed read through openDatabase (pg, embedded, embedded-thread)",
  "statement-cpu-transport": "CPU per statement of the embedded database over TCP against its Unix socket",
};

const [name, ...args] = process.argv.slice(2);
if (!name || !(name in EXPERIMENTS)) {
  const list = Object.entries(EXPERIMENTS).map(([key, what]) => `  ${key.padEnd(24)} ${what}`);
  process.stderr.write(`usage: npm run bench:experiment -- <name> [arguments]\n${list.join("\n")}\n`);
  process.exit(2);
}
const script = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
const result = spawnSync(process.execPath, ["--import", "tsx", script, ...args], { stdio: "inherit" });
process.exit(result.status ?? 1);
