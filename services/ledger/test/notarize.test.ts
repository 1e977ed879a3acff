import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestLedger, sha256Hex, type TestLedger } from "./test-ledger.js";

const codeOf = (error: unknown) => ConnectError.from(error).code;
const messageOf = (error: unknown) => ConnectError.from(error).rawMessage;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("LedgerService Notarize and GetRecord", () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await createTestLedger();
  });
  afterAll(async () => {
    await ledger.close();
  });

  it("appends a digest and answers a new object id on the ledger chain", async () => {
    const digest = sha256Hex("salted batch root 1");
    const first = await ledger.client.notarize({ digest });
    expect(first.objectId).toMatch(UUID);
    expect(first.chain).toBe("ledger");
    const [entry] = await ledger.dependencies.repositories.entries.list({ from: Number(first.sequence), limit: 1 });
    expect(entry).toMatchObject({ kind: "notarization", payload: { object_id: first.objectId, digest } });
    const again = await ledger.client.notarize({ digest });
    expect(again.objectId).not.toBe(first.objectId);
    expect(again.sequence).toBe(first.sequence + 1n);
  });

  it("returns the same record for a repeated idempotency key, even under concurrency", async () => {
    const digest = sha256Hex("job 42");
    const results = await Promise.all(
      Array.from({ length: 5 }, () => ledger.client.notarize({ digest, idempotencyKey: "job-42" })),
    );
    expect(new Set(results.map((r) => r.objectId)).size).toBe(1);
    expect(new Set(results.map((r) => r.sequence)).size).toBe(1);
    const later = await ledger.client.notarize({ digest, idempotencyKey: "job-42" });
    expect(later).toMatchObject({ objectId: results[0]!.objectId, sequence: results[0]!.sequence, chain: "ledger" });
    const other = await ledger.client.notarize({ digest, idempotencyKey: "job-43" });
    expect(other.objectId).not.toBe(later.objectId);
  });

  it("keeps the idempotency key out of the public log entry", async () => {
    const notarized = await ledger.client.notarize({ digest: sha256Hex("x"), idempotencyKey: "secret-job-key" });
    const [entry] = await ledger.dependencies.repositories.entries.list({ from: Number(notarized.sequence), limit: 1 });
    expect(JSON.stringify(entry)).not.toContain("secret-job-key");
  });

  it("refuses an idempotency key reused for another digest with AlreadyExists", async () => {
    await ledger.client.notarize({ digest: sha256Hex("a"), idempotencyKey: "reused" });
    const error = await ledger.client
      .notarize({ digest: sha256Hex("b"), idempotencyKey: "reused" })
      .catch((e: unknown) => e);
    expect(codeOf(error)).toBe(Code.AlreadyExists);
    expect(messageOf(error)).toBe("idempotency_key was already used for another digest");
  });

  it("refuses anything but 64 lowercase hex characters as the digest", async () => {
    const sizeBefore = await ledger.dependencies.repositories.entries.size();
    const digest = sha256Hex("y");
    for (const bad of [
      "",
      "abc",
      digest.toUpperCase(),
      `${digest}00`,
      `${digest.slice(0, 63)}g`,
      ` ${digest.slice(1)}`,
    ]) {
      const error = await ledger.client.notarize({ digest: bad }).catch((e: unknown) => e);
      expect(codeOf(error), bad).toBe(Code.InvalidArgument);
      expect(messageOf(error)).toBe("digest must be a SHA-256 digest: 64 lowercase hex characters");
    }
    const longKey = await ledger.client.notarize({ digest, idempotencyKey: "k".repeat(256) }).catch((e: unknown) => e);
    expect(codeOf(longKey)).toBe(Code.InvalidArgument);
    expect(messageOf(longKey)).toBe("idempotency_key must be at most 255 characters");
    expect(await ledger.dependencies.repositories.entries.size()).toBe(sizeBefore);
  });

  it("returns a record with what was notarized and when", async () => {
    const digest = sha256Hex("record");
    const notarized = await ledger.client.notarize({ digest });
    const record = await ledger.client.getRecord({ objectId: notarized.objectId.toUpperCase() });
    expect(record).toMatchObject({
      objectId: notarized.objectId,
      digest,
      chain: "ledger",
      sequence: notarized.sequence,
    });
    expect(record.recordedAt).toBeDefined();
  });

  it("answers NotFound for an unknown object id and InvalidArgument for one that is not a UUID", async () => {
    const missing = await ledger.client
      .getRecord({ objectId: "0b7e3f8e-8d0c-4a57-9b0e-5c1f0f6f2a11" })
      .catch((e: unknown) => e);
    expect(codeOf(missing)).toBe(Code.NotFound);
    expect(messageOf(missing)).toBe("Record not found");
    for (const objectId of ["", "42", "not-a-uuid", "0b7e3f8e-8d0c-4a57-9b0e-5c1f0f6f2a1z"]) {
      const error = await ledger.client.getRecord({ objectId }).catch((e: unknown) => e);
      expect(codeOf(error), objectId).toBe(Code.InvalidArgument);
      expect(messageOf(error)).toBe("object_id must be a UUID");
    }
  });
});
