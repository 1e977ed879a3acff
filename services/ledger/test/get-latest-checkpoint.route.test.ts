import { EMPTY_TREE_HASH } from "@attesto/protocol";
import { importJWK, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toHex } from "../src/domain/hashes.js";
import { createTestLedger, PUBLIC_URL, sha256Hex, type TestLedger } from "./test-ledger.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("GET /checkpoints/latest", () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await createTestLedger();
  });
  afterAll(async () => {
    await ledger.close();
  });

  it("signs the empty log on first read: tree size 0 and the RFC 6962 empty root", async () => {
    const res = await ledger.app.inject({ method: "GET", url: "/checkpoints/latest" });
    expect(res.statusCode).toBe(200);
    expect(res.json().checkpoint).toMatchObject({ tree_size: 0, root_hash: toHex(EMPTY_TREE_HASH) });
  });

  it("answers the latest checkpoint and the key whose signature verifies on it", async () => {
    for (let i = 0; i < 3; i++) await ledger.client.notarize({ digest: sha256Hex(`c ${i}`) });
    await ledger.dependencies.checkpointing.refresh();
    const res = await ledger.app.inject({ method: "GET", url: "/checkpoints/latest" });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      checkpoint: {
        tree_size: 3,
        root_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        created_at: expect.stringMatching(ISO),
        signature_jws: expect.any(String),
      },
      public_jwk: {
        kty: "OKP",
        crv: "Ed25519",
        x: expect.any(String),
        kid: expect.any(String),
        alg: "EdDSA",
        use: "sig",
      },
    });
    const { payload } = await jwtVerify(body.checkpoint.signature_jws, await importJWK(body.public_jwk, "EdDSA"), {
      algorithms: ["EdDSA"],
      typ: "ledger-checkpoint+jwt",
      issuer: PUBLIC_URL,
    });
    expect(payload).toMatchObject({
      tree_size: 3,
      root_hash: body.checkpoint.root_hash,
      created_at: body.checkpoint.created_at,
    });
  });
});

describe("GET /checkpoints/latest before the first checkpoint", () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await createTestLedger({ LEDGER_CHECKPOINT_ON_READ: "false" });
  });
  afterAll(async () => {
    await ledger.close();
  });

  it("answers 404 until the checkpointer signs one", async () => {
    const res = await ledger.app.inject({ method: "GET", url: "/checkpoints/latest" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: "not_found", message: "No checkpoint yet" });
  });
});
