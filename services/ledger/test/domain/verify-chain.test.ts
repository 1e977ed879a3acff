import { describe, expect, it } from "vitest";
import { canonicalEntryBytes, GENESIS_PREV_HASH, type LedgerEntry, sealEntry } from "../../src/domain/ledger-entry.js";
import { verifyChain } from "../../src/domain/verify-chain.js";

const at = new Date("2025-01-02T03:04:05.678Z");

function buildLog(size: number): LedgerEntry[] {
  const log: LedgerEntry[] = [];
  for (let i = 0; i < size; i++) {
    log.push(
      sealEntry(log.at(-1), { kind: "notarization", payload: { object_id: `o${i}`, digest: "ab" }, createdAt: at }),
    );
  }
  return log;
}

describe("the hash chain", () => {
  it("starts from the genesis hash and links every entry to the previous one", () => {
    const log = buildLog(3);
    expect(log.map((e) => e.sequence)).toEqual([0, 1, 2]);
    expect(log[0]!.prevHash).toBe(GENESIS_PREV_HASH);
    expect(log[1]!.prevHash).toBe(log[0]!.entryHash);
    expect(verifyChain(log)).toEqual({ valid: true, size: 3, head: log[2]!.entryHash });
  });

  it("hashes the canonical entry: sorted keys, ISO timestamp, position included", () => {
    const [entry] = buildLog(1);
    expect(new TextDecoder().decode(canonicalEntryBytes(entry!))).toBe(
      '{"created_at":"2025-01-02T03:04:05.678Z","kind":"notarization","payload":{"digest":"ab","object_id":"o0"},"sequence":0}',
    );
  });

  it("reports the first entry whose content, link or position was changed", () => {
    const log = buildLog(5);
    const edited = log.map((e) => (e.sequence === 2 ? { ...e, payload: { object_id: "o2", digest: "cd" } } : e));
    expect(verifyChain(edited)).toEqual({ valid: false, sequence: 2, problem: "leaf_hash" });
    const relinked = log.map((e) => (e.sequence === 3 ? { ...e, prevHash: log[1]!.entryHash } : e));
    expect(verifyChain(relinked)).toEqual({ valid: false, sequence: 3, problem: "prev_hash" });
    const rehashed = log.map((e) => (e.sequence === 4 ? { ...e, entryHash: e.leafHash } : e));
    expect(verifyChain(rehashed)).toEqual({ valid: false, sequence: 4, problem: "entry_hash" });
    expect(verifyChain([log[0]!, log[2]!])).toEqual({ valid: false, sequence: 1, problem: "gap" });
  });

  it("continues a verification from a known head", () => {
    const log = buildLog(6);
    expect(verifyChain(log.slice(3), log[2])).toEqual({ valid: true, size: 6, head: log[5]!.entryHash });
  });
});
