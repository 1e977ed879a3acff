import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

/**
 * No fixed `setTimeout` wait before an assertion in a test file: a test that sleeps and then looks
 * either waits for the wrong thing or for too long. Wait for the event itself (a promise the
 * double resolves, `queue.idle()`), move the clock (every service takes one), move the data (rows
 * stamped in the past), or poll a condition until a deadline (`test/k8s/support/wait-for.ts`).
 *
 * A fixed wait is a statement of its own `await new Promise((resolve) => setTimeout(resolve, N));`.
 * The files below still hold some, each work a double simulates, a quiet window or the timing of
 * a fault; their number may only go down.
 */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const KNOWN: Record<string, number> = {
  "services/scheduler/test/kill-worker.test.ts": 1, // a job the double holds for holdMs
  "services/lib/runtime/test/in-process-parity.test.ts": 1, // a slow handler (the double)
  "test/k8s/operator-reconcile.test.ts": 2, // settle()'s quiet window, a reconcile the double makes slow
  "test/faults/process-kill.test.ts": 1, // lets a volley of token requests get in flight before the kill
};

const FIXED_WAIT = /^\s*await new Promise\(\(?\w*\)? => setTimeout\(/;

function testFiles(folder: string): string[] {
  return readdirSync(join(repoRoot, folder), { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".test.ts") && !path.split("/").includes("node_modules"))
    .map((path) => `${folder}/${path}`);
}

it("test files hold no fixed setTimeout wait beyond the known ones, which only go down", () => {
  const found: Record<string, number> = {};
  for (const file of ["services", "test", "operator", "cli"].flatMap(testFiles)) {
    const count = readFileSync(join(repoRoot, file), "utf8")
      .split("\n")
      .filter((line) => FIXED_WAIT.test(line)).length;
    if (count > 0) found[file] = count;
  }
  const over = Object.entries(found).filter(([file, count]) => count > (KNOWN[file] ?? 0));
  expect(over, "a new fixed wait: wait for the event, move the clock or poll with a deadline").toEqual([]);
  const stale = Object.entries(KNOWN).filter(([file, count]) => (found[file] ?? 0) < count);
  expect(stale, "fewer fixed waits than listed: lower the number in KNOWN").toEqual([]);
});

it("recognises a fixed wait (the check can fail)", () => {
  expect(FIXED_WAIT.test("    await new Promise((r) => setTimeout(r, 1100));")).toBe(true);
  expect(FIXED_WAIT.test("    await new Promise((resolve) => setTimeout(resolve, 5));")).toBe(true);
  expect(FIXED_WAIT.test("    while (busy) await new Promise((r) => setTimeout(r, 200));")).toBe(false);
});
