import { canonicalEntryBytes, hashLeaf as ledgerLeaf, verifyInclusion as ledgerVerify } from "@attesto/ledger";
import { notaryV1 } from "@attesto/proto";
import { fromHex, hashLeaf, toHex, verifyInclusion } from "@attesto/protocol";
import { Code, ConnectError } from "@connectrpc/connect";
import { compactVerify, importJWK } from "jose";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchIdempotencyKey } from "../src/domain/anchor-batch.js";
import { saltDigest } from "../src/domain/salted-digest.js";
import {
  newCredentialId,
  sha256Hex,
  startTestScheduler,
  type TestScheduler,
  waitFor,
} from "./support/test-scheduler.js";

const { NotarizationState } = notaryV1;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const codeOf = (error: unknown) => ConnectError.from(error).code;
const messageOf = (error: unknown) => ConnectError.from(error).rawMessage;

describe("NotaryService: enqueue, batching and anchoring", () => {
  let scheduler: TestScheduler;
  beforeAll(async () => {
    scheduler = await startTestScheduler();
  });
  afterAll(async () => {
    await scheduler?.close();
  });

  const enqueue = (credentialId: string, digest = sha256Hex(credentialId), tenant = "acme") =>
    scheduler.notary.enqueueNotarization({ tenant, credentialId, digest });

  const anchored = (objectId: string) =>
    waitFor(
      async () => {
        const { notarization } = await scheduler.admin.getNotarization({ objectId });
        return notarization?.state === NotarizationState.ANCHORED && notarization;
      },
      20_000,
      `notarization ${objectId} anchored`,
    );

  it("answers a stable reference at once, idempotently per credential id", async () => {
    const credentialId = newCredentialId();
    const digest = sha256Hex("jwt 1");
    const first = await enqueue(credentialId, digest, "Acme");
    expect(first.objectId).toMatch(UUID);
    expect(first.chain).toBe("ledger");
    expect(first.state).toBe(NotarizationState.PENDING);
    const again = await enqueue(credentialId, digest, "acme");
    expect(again.objectId).toBe(first.objectId);
    expect((await scheduler.admin.getReference({ credentialId })).objectId).toBe(first.objectId);

    for (const [tenant, otherDigest] of [
      ["acme", sha256Hex("another jwt")],
      ["other", digest],
    ] as const) {
      const error = await enqueue(credentialId, otherDigest, tenant).catch((e: unknown) => e);
      expect({ code: codeOf(error), message: messageOf(error) }).toEqual({
        code: Code.AlreadyExists,
        message: "credential_id was already enqueued with another tenant or digest",
      });
    }
    const count = await scheduler.db
      .selectFrom("notarizations")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("credential_id", "=", credentialId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it("validates its input", async () => {
    for (const [request, message] of [
      [
        { tenant: "acme", credentialId: "c", digest: "ABC" },
        "digest must be a SHA-256 digest: 64 lowercase hex characters",
      ],
      [{ tenant: "", credentialId: "c", digest: sha256Hex("x") }, "tenant is required (at most 100 characters)"],
      [
        { tenant: "acme", credentialId: "", digest: sha256Hex("x") },
        "credential_id is required (at most 255 characters)",
      ],
    ] as const) {
      const error = await scheduler.notary.enqueueNotarization(request).catch((e: unknown) => e);
      expect({ code: codeOf(error), message: messageOf(error) }).toEqual({ code: Code.InvalidArgument, message });
    }
    const missing = await scheduler.admin
      .getNotarization({ objectId: "0b7e3f8e-8d0c-4a57-9b0e-5c1f0f6f2a11" })
      .catch((e: unknown) => e);
    expect(codeOf(missing)).toBe(Code.NotFound);
    const notUuid = await scheduler.admin.getNotarization({ objectId: "nope" }).catch((e: unknown) => e);
    expect(messageOf(notUuid)).toBe("object_id must be a UUID");
    const unknownReference = await scheduler.admin.getReference({ credentialId: "nope" }).catch((e: unknown) => e);
    expect(codeOf(unknownReference)).toBe(Code.NotFound);
  });

  it("cuts batches by size and by interval; every proof verifies up to the ledger's signed checkpoint", async () => {
    await scheduler.start();
    const credentials = Array.from({ length: 6 }, () => newCredentialId());
    const references = [];
    for (const id of credentials) references.push(await enqueue(id, sha256Hex(`jwt ${id}`), "acme"));
    const results = [];
    for (const reference of references) results.push(await anchored(reference.objectId));

    // 6 credentials, batches of at most 4: one full batch at once, the rest after the interval.
    const batchIds = new Set(results.map((n) => n.batch?.batchId));
    expect(batchIds.size).toBeGreaterThanOrEqual(2);
    for (const n of results) expect(Number(n.batch?.treeSize)).toBeLessThanOrEqual(4);
    const { checkpoint: latest, publicJwkJson } = await scheduler.ledger.client.getCheckpoint({});
    expect(latest).toBeDefined();
    const key = await importJWK(JSON.parse(publicJwkJson), "EdDSA");

    for (const [index, n] of results.entries()) {
      const reference = references[index]!;
      expect(n.objectId).toBe(reference.objectId);
      expect(n.chain).toBe("ledger");
      expect(n.digest).toBe(sha256Hex(`jwt ${credentials[index]}`));
      // 1. The salted digest is the batch leaf, and its audit path leads to the batch root.
      expect(n.saltedDigest).toBe(saltDigest(n.salt, n.digest));
      expect(n.saltedDigest).not.toBe(n.digest);
      const batch = n.batch!;
      const leaf = hashLeaf(fromHex(n.saltedDigest));
      expect(
        verifyInclusion(
          leaf,
          Number(batch.leafIndex),
          Number(batch.treeSize),
          batch.inclusionProof.map(fromHex),
          fromHex(batch.root),
        ),
      ).toBe(true);
      // ... also by the ledger's own RFC 6962 verifier.
      expect(
        ledgerVerify(
          ledgerLeaf(fromHex(n.saltedDigest)),
          Number(batch.leafIndex),
          Number(batch.treeSize),
          batch.inclusionProof.map(fromHex),
          fromHex(batch.root),
        ),
      ).toBe(true);
      // 2. The ledger entry holds the batch root; its leaf is in the signed checkpoint's tree.
      const anchor = n.anchor!;
      const record = await scheduler.ledger.client.getRecord({ objectId: anchor.objectId });
      expect(record.digest).toBe(batch.root);
      const entryLeaf = ledgerLeaf(
        canonicalEntryBytes({
          kind: "notarization",
          payload: { object_id: anchor.objectId, digest: batch.root },
          sequence: Number(anchor.sequence),
          createdAt: new Date(Number(anchor.recordedAt!.seconds) * 1000 + Math.floor(anchor.recordedAt!.nanos / 1e6)),
        }),
      );
      const checkpoint = anchor.checkpoint!;
      expect(
        ledgerVerify(
          entryLeaf,
          Number(anchor.sequence),
          Number(checkpoint.treeSize),
          anchor.inclusionProof.map(fromHex),
          fromHex(checkpoint.rootHash),
        ),
      ).toBe(true);
      // 3. The checkpoint is signed by the ledger key and says what the proof used.
      const { payload, protectedHeader } = await compactVerify(checkpoint.signatureJws, key);
      expect(protectedHeader.typ).toBe("ledger-checkpoint+jwt");
      const claims = JSON.parse(new TextDecoder().decode(payload));
      expect(claims).toMatchObject({ tree_size: Number(checkpoint.treeSize), root_hash: checkpoint.rootHash });
      expect(toHex(leaf)).toHaveLength(64);
    }
    // One ledger record per batch, never per credential.
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(`${scheduler.ledger.database.schema}.ledger_entries`)} WHERE kind = 'notarization'
    `.execute(scheduler.ledger.database.db);
    expect(rows[0]?.n).toBe(batchIds.size);
  });

  it("GetAnchorProof answers the anchor to a caller naming the digest, and NOT_FOUND alike for a wrong digest or id", async () => {
    await scheduler.start();
    const digest = sha256Hex("anchor proof jwt");
    const { objectId } = await enqueue(newCredentialId(), digest);
    const full = await anchored(objectId);
    const proof = await scheduler.notary.getAnchorProof({ objectId, digest });
    expect(proof).toMatchObject({
      objectId,
      chain: "ledger",
      state: NotarizationState.ANCHORED,
      salt: full.salt,
      saltedDigest: full.saltedDigest,
      batch: full.batch,
      anchor: full.anchor,
      anchoredAt: full.anchoredAt,
    });
    for (const request of [
      { objectId, digest: sha256Hex("another jwt") },
      { objectId: "0b7e3f8e-8d0c-4a57-9b0e-5c1f0f6f2a11", digest },
    ]) {
      const refused = await scheduler.notary.getAnchorProof(request).catch((e: unknown) => e);
      expect({ code: codeOf(refused), message: messageOf(refused) }).toEqual({
        code: Code.NotFound,
        message: "Notarization not found",
      });
    }
    const malformed = await scheduler.notary.getAnchorProof({ objectId, digest: "ABC" }).catch((e: unknown) => e);
    expect(codeOf(malformed)).toBe(Code.InvalidArgument);
    // Only the credential issuer and the holder may ask (caller policy).
    const operator = await scheduler.admin.getAnchorProof({ objectId, digest }).catch((e: unknown) => e);
    expect(codeOf(operator)).toBe(Code.PermissionDenied);
  });

  it("anchors once when the anchor job runs twice", async () => {
    const reference = await enqueue(newCredentialId());
    const n = await anchored(reference.objectId);
    const batchId = n.batch!.batchId;
    const before = scheduler.ledger.notarizeCalls;
    // A duplicate of the finished job: it is not the batch's current job, so it does nothing.
    const { anchorBatch } = await import("../src/domain/anchor-batch.js");
    await anchorBatch(scheduler.deps, batchId, "00000000-0000-4000-8000-000000000000");
    expect(scheduler.ledger.notarizeCalls).toBe(before);
    // The same ledger call made again (a worker that died after the ledger wrote) answers the same record.
    const again = await scheduler.ledger.client.notarize({
      digest: n.batch!.root,
      idempotencyKey: batchIdempotencyKey(batchId),
    });
    expect(again.objectId).toBe(n.anchor!.objectId);
    const entries = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(`${scheduler.ledger.database.schema}.ledger_entries`)}
      WHERE kind = 'notarization' AND payload->>'digest' = ${n.batch!.root}
    `.execute(scheduler.ledger.database.db);
    expect(entries.rows[0]?.n).toBe(1);
    // Enqueued twice, anchored once: a repeated enqueue of an anchored credential changes nothing.
    expect((await enqueue(n.credentialId, n.digest, n.tenant)).state).toBe(NotarizationState.ANCHORED);
  });

  it("refuses to enqueue with require_ledger_reachable while the ledger is down", async () => {
    scheduler.ledger.down = true;
    try {
      const error = await scheduler.notary
        .enqueueNotarization({
          tenant: "acme",
          credentialId: newCredentialId(),
          digest: sha256Hex("x"),
          requireLedgerReachable: true,
        })
        .catch((e: unknown) => e);
      expect({ code: codeOf(error), message: messageOf(error) }).toEqual({
        code: Code.Unavailable,
        message: "Ledger is unavailable",
      });
      // Without the flag the credential is accepted and anchored later.
      const accepted = await enqueue(newCredentialId());
      expect(accepted.state).toBe(NotarizationState.PENDING);
    } finally {
      scheduler.ledger.down = false;
    }
  });
});
