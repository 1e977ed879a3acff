import { randomBytes } from "node:crypto";
import { ledgerV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { launchService, type RunningService } from "@attesto/runtime/service";
import { testCredentialSigner, testIdentityEnv } from "@attesto/runtime/testing";
import { openDatabase, testDatabaseUrl } from "@attesto/store";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadLedgerConfig } from "../src/config.js";
import { ledger } from "../src/service.js";
import { sha256Hex } from "./test-ledger.js";

describe("the ledger on real ports", () => {
  const schema = `ledger_launch_${randomBytes(4).toString("hex")}`;
  let running: RunningService;
  beforeAll(async () => {
    const config = loadLedgerConfig({
      DATABASE_URL: testDatabaseUrl(),
      DATABASE_SCHEMA: schema,
      ...testIdentityEnv("ledger"),
      HOST: "127.0.0.1",
      PORT: "0",
      INTERNAL_PORT: "0",
      LOG_LEVEL: "silent",
      LEDGER_CHECKPOINT_INTERVAL_MS: "50",
      LEDGER_CHECKPOINT_ON_READ: "false",
    });
    running = await launchService(ledger.definition, config);
  });
  afterAll(async () => {
    await running.close();
    const database = openDatabase({ url: testDatabaseUrl(), schema });
    await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(database.db);
    await database.close();
  });

  it("migrates, serves LedgerService with service credentials and anchors records in the background", async () => {
    const client = createRpcClient(ledgerV1.LedgerService, {
      baseUrl: running.internalUrl,
      audience: "ledger",
      signer: testCredentialSigner("scheduler"),
      timeoutMs: 5000,
    });
    const { objectId, sequence } = await client.notarize({ digest: sha256Hex("launched") });
    expect(sequence).toBe(0n);
    // Only the background checkpointer can cover the record here (on-read checkpoints are off).
    const record = await vi.waitFor(
      async () => {
        const current = await client.getRecord({ objectId });
        expect(current.checkpoint).toBeDefined();
        return current;
      },
      { timeout: 5000, interval: 50 },
    );
    expect(record.checkpoint?.treeSize).toBe(1n);
    expect(record.inclusionProof).toEqual([]);
  });
});
