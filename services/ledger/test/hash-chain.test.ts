import { ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEntry } from "../src/domain/append-entry.js";
import { GENESIS_PREV_HASH } from "../src/domain/ledger-entry.js";
import { verifyChain } from "../src/domain/verify-chain.js";
import { createTestLedger, sha256Hex, type TestLedger } from "./test-ledger.js";

describe("the append-only hash-chained log", () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await createTestLedger();
  });
  afterAll(async () => {
    await ledger.close();
  });

  const allEntries = () => ledger.dependencies.repositories.entries.list({ from: 0, limit: 10_000 });

  it("stores entries whose chain recomputes from their content, across every kind", async () => {
    const { did } = await ledger.dids.createDid({
      publicJwkJson: JSON.stringify(ed25519PublicJwk(generateEd25519Jwk())),
    });
    await ledger.client.notarize({ digest: sha256Hex("one") });
    await ledger.dids.deactivateDid({ did });
    await ledger.client.notarize({ digest: sha256Hex("two") });
    const entries = await allEntries();
    expect(entries.map((e) => e.kind)).toEqual(["did.create", "notarization", "did.deactivate", "notarization"]);
    expect(entries[0]!.prevHash).toBe(GENESIS_PREV_HASH);
    expect(verifyChain(entries)).toEqual({ valid: true, size: 4, head: entries[3]!.entryHash });
  });

  it("stays gapless and unforked under 20 concurrent Notarize calls (plus DID writes)", async () => {
    const before = await ledger.dependencies.repositories.entries.size();
    const jwk = JSON.stringify(ed25519PublicJwk(generateEd25519Jwk()));
    const results = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => ledger.client.notarize({ digest: sha256Hex(`parallel ${i}`) })),
      ...Array.from({ length: 3 }, () => ledger.dids.createDid({ publicJwkJson: jwk })),
    ]);
    const sequences = results.map((r) => Number(r.sequence)).sort((a, b) => a - b);
    expect(sequences).toEqual(Array.from({ length: 23 }, (_, i) => before + i));
    const entries = await allEntries();
    expect(entries).toHaveLength(before + 23);
    expect(verifyChain(entries)).toMatchObject({ valid: true, size: before + 23 });
    expect(new Set(entries.map((e) => e.prevHash)).size).toBe(entries.length);
  });

  it("leaves nothing behind when an append fails half-way", async () => {
    const before = await ledger.dependencies.repositories.entries.size();
    const failing = ledger.dependencies.repositories.appends.runSerialized(async ({ entries, notarizations }) => {
      const entry = await appendEntry(entries, { kind: "notarization", payload: { object_id: "x" } }, new Date());
      // A notarization row that violates the digest check: the whole append must roll back.
      await notarizations.insert({
        objectId: "0b7e3f8e-8d0c-4a57-9b0e-5c1f0f6f2a11",
        digest: "not a digest",
        idempotencyKey: undefined,
        sequence: entry.sequence,
        recordedAt: entry.createdAt,
      });
    });
    await expect(failing).rejects.toThrow(/notarizations_digest_check|check constraint/);
    expect(await ledger.dependencies.repositories.entries.size()).toBe(before);
    const next = await ledger.client.notarize({ digest: sha256Hex("after rollback") });
    expect(Number(next.sequence)).toBe(before);
    expect(verifyChain(await allEntries())).toMatchObject({ valid: true, size: before + 1 });
  });

  it("refuses, at the database, a second entry after the same predecessor", async () => {
    const [head] = await ledger.db
      .selectFrom("ledger_entries")
      .selectAll()
      .orderBy("sequence", "desc")
      .limit(1)
      .execute();
    const fork = ledger.db
      .insertInto("ledger_entries")
      .values({
        ...head!,
        sequence: head!.sequence + 1,
        entry_hash: "f".repeat(64),
        payload: sql<never>`${JSON.stringify(head!.payload)}::jsonb`,
      })
      .execute();
    await expect(fork).rejects.toThrow(/ledger_entries_prev_hash_key/);
  });

  it("detects an entry edited in place", async () => {
    const entries = await allEntries();
    const target = entries[1]!;
    await sql`UPDATE ${sql.table(`${ledger.database.schema}.ledger_entries`)}
      SET payload = jsonb_set(payload, '{digest}', ${JSON.stringify(sha256Hex("forged"))}::jsonb)
      WHERE sequence = ${target.sequence}`.execute(ledger.db);
    expect(verifyChain(await allEntries())).toEqual({ valid: false, sequence: target.sequence, problem: "leaf_hash" });
  });
});
