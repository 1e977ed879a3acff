import { randomUUID } from "node:crypto";
import { createTestDatabase, migrateToLatest, type TestDatabase } from "@attesto/store";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations } from "../src/store/migrations/index.js";

/** The status lists as migrations up to 0008 left them. */
interface Tables0008 {
  status_lists: {
    id: string;
    tenant: string;
    signer: string;
    signing_offer_id: string | null;
    size: number;
    bits: number;
    statuses: Buffer;
    allocated: Buffer;
    allocated_count: number;
    version: number;
    created_at: Date;
    updated_at: Date;
  };
}

const before0009 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0009"));

describe("migration 0009: status list entries as rows", () => {
  let database: TestDatabase<unknown>;
  beforeAll(async () => {
    database = await createTestDatabase<unknown>({ prefix: "issuer_migration_0009", migrations: before0009 });
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("turns each list's allocation bitmap into entries and closes full lists", async () => {
    const db = database.db as Kysely<Tables0008>;
    const list = (allocated: Buffer, allocatedCount: number) => ({
      id: randomUUID(),
      tenant: "acme",
      signer: "x509",
      signing_offer_id: null,
      size: 16,
      bits: 2,
      statuses: Buffer.alloc(4),
      allocated,
      allocated_count: allocatedCount,
      version: 1,
      created_at: new Date("2026-01-01T00:00:00Z"),
      updated_at: new Date("2026-01-02T00:00:00Z"),
    });
    // Index i is bit (i & 7) of byte (i >> 3), least significant first: 0, 2 and 15 here.
    const open = list(Buffer.from([0b0000_0101, 0b1000_0000]), 3);
    const full = list(Buffer.from([0xff, 0xff]), 16);
    await db.insertInto("status_lists").values([open, full]).execute();

    await migrateToLatest(database.db, database.schema, migrations);

    const entries = await sql<{ list_id: string; idx: number }>`
      SELECT list_id, idx FROM ${sql.id(database.schema, "status_list_entries")} ORDER BY idx`.execute(database.db);
    expect(entries.rows.filter((row) => row.list_id === open.id).map((row) => row.idx)).toEqual([0, 2, 15]);
    expect(entries.rows.filter((row) => row.list_id === full.id).map((row) => row.idx)).toEqual([...Array(16).keys()]);
    const lists = await sql<{ id: string; closed_at: Date | null }>`
      SELECT * FROM ${sql.id(database.schema, "status_lists")}`.execute(database.db);
    const byId = new Map(lists.rows.map((row) => [row.id, row]));
    expect(byId.get(open.id)?.closed_at).toBeNull();
    expect(byId.get(full.id)?.closed_at).toEqual(full.updated_at);
    expect(Object.keys(byId.get(open.id)!)).not.toContain("allocated");
  });
});
