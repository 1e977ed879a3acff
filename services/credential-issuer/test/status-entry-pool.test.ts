import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AllocateStatusEntriesInput } from "../src/domain/ports.js";
import { createStatusEntryPool } from "../src/domain/status-entry-pool.js";
import type { StatusEntry } from "../src/domain/status-lists.js";

/** A status list repository that hands out consecutive indexes of one list, counting its claims. */
function fakeLists() {
  const listId = randomUUID();
  let next = 0;
  const claims: number[] = [];
  return {
    claims,
    async allocate(input: AllocateStatusEntriesInput): Promise<StatusEntry[]> {
      claims.push(input.count);
      await Promise.resolve();
      return Array.from({ length: input.count }, () => ({ listId, idx: next++ }));
    },
  };
}

const draws = { draws: () => [], among: () => [] };
const take = (pool: ReturnType<typeof createStatusEntryPool>, count = 1, signer = "k") =>
  pool.take({ tenant: "acme", signer: { key: signer }, count, size: async () => 1024, bits: 2, now: new Date(0) });

describe("status entry pool", () => {
  it("claims ahead: one claim statement per refill, each entry handed out once", async () => {
    const lists = fakeLists();
    const pool = createStatusEntryPool(lists, draws, 4);
    const taken = [];
    for (let n = 0; n < 10; n++) taken.push(...(await take(pool)));
    expect(lists.claims).toEqual([5, 5]);
    expect(new Set(taken.map((entry) => entry.idx)).size).toBe(10);
  });

  it("concurrent takes never share an entry", async () => {
    const lists = fakeLists();
    const pool = createStatusEntryPool(lists, draws, 2);
    const counts = Array.from({ length: 20 }, (_, n) => 1 + (n % 3));
    const taken = await Promise.all(counts.map((count) => take(pool, count)));
    expect(taken.map((entries) => entries.length)).toEqual(counts);
    const all = taken.flat();
    expect(new Set(all.map((entry) => entry.idx)).size).toBe(all.length);
  });

  it("an entry given back (its credential was not recorded) is handed out again, to the same signer only", async () => {
    const lists = fakeLists();
    const pool = createStatusEntryPool(lists, draws, 0);
    const [first] = await take(pool);
    pool.giveBack("acme", { key: "k" }, [first!]);
    expect(await take(pool, 1, "other")).not.toContainEqual(first);
    expect(await take(pool)).toEqual([first]);
  });
});
