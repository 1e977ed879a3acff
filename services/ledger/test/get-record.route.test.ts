import { hashLeaf, verifyInclusion } from "@attesto/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromHex, toHex } from "../src/domain/hashes.js";
import { canonicalEntryBytes } from "../src/domain/ledger-entry.js";
import { createTestLedger, sha256Hex, type TestLedger } from "./test-ledger.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HEX = /^[0-9a-f]{64}$/;

describe("GET /records/:objectId", () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await createTestLedger();
  });
  afterAll(async () => {
    await ledger.close();
  });

  it("answers the record, its leaf hash, the checkpoint and the inclusion proof", async () => {
    for (let i = 0; i < 4; i++) await ledger.client.notarize({ digest: sha256Hex(`filler ${i}`) });
    const digest = sha256Hex("public record");
    const { objectId, sequence } = await ledger.client.notarize({ digest });
    const res = await ledger.app.inject({ method: "GET", url: `/records/${objectId}` });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      object_id: objectId,
      digest,
      chain: "ledger",
      sequence: Number(sequence),
      recorded_at: expect.stringMatching(ISO),
      leaf_hash: expect.stringMatching(HEX),
      checkpoint: {
        tree_size: 5,
        root_hash: expect.stringMatching(HEX),
        created_at: expect.stringMatching(ISO),
        signature_jws: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      },
      // Leaf 4 of a 5-leaf tree: its only sibling is the root of leaves 0..3.
      inclusion_proof: [expect.stringMatching(HEX)],
    });
    // The leaf is rebuilt from the public fields alone, then proven against the checkpoint root.
    const leaf = hashLeaf(
      canonicalEntryBytes({
        sequence: body.sequence,
        kind: "notarization",
        payload: { object_id: body.object_id, digest: body.digest },
        createdAt: new Date(body.recorded_at),
      }),
    );
    expect(toHex(leaf)).toBe(body.leaf_hash);
    expect(
      verifyInclusion(
        leaf,
        body.sequence,
        body.checkpoint.tree_size,
        body.inclusion_proof.map(fromHex),
        fromHex(body.checkpoint.root_hash),
      ),
    ).toBe(true);
  });

  it("answers 404 for an unknown object id", async () => {
    const res = await ledger.app.inject({ method: "GET", url: "/records/0b7e3f8e-8d0c-4a57-9b0e-5c1f0f6f2a11" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: "not_found", message: "Record not found" });
  });

  it("answers 400 for an object id that is not a UUID (414 when longer than a path parameter may be)", async () => {
    for (const [objectId, message] of [
      ["42", "object_id must be a UUID"],
      ["'; DROP TABLE notarizations; --", "object_id must be a UUID"],
      ["x".repeat(100), "object_id must be a UUID"],
    ]) {
      const res = await ledger.app.inject({ method: "GET", url: `/records/${encodeURIComponent(objectId!)}` });
      expect(res.statusCode, objectId).toBe(400);
      expect(res.json(), objectId).toEqual({ error: "invalid_request", message });
    }
    const long = await ledger.app.inject({ method: "GET", url: `/records/${"x".repeat(101)}` });
    expect(long.statusCode).toBe(414);
    expect(long.json().error).toBe("uri_too_long");
  });
});

describe("GET /records/:objectId before any checkpoint covers the record", () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await createTestLedger({ LEDGER_CHECKPOINT_ON_READ: "false" });
  });
  afterAll(async () => {
    await ledger.close();
  });

  it("answers the record with a null checkpoint and an empty proof", async () => {
    const digest = sha256Hex("not yet anchored");
    const { objectId } = await ledger.client.notarize({ digest });
    const res = await ledger.app.inject({ method: "GET", url: `/records/${objectId}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      object_id: objectId,
      digest,
      chain: "ledger",
      sequence: 0,
      recorded_at: expect.stringMatching(ISO),
      leaf_hash: expect.stringMatching(HEX),
      checkpoint: null,
      inclusion_proof: [],
    });
  });
});
