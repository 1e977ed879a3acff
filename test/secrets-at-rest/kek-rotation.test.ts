import { randomBytes } from "node:crypto";
import { credentialIssuer } from "@attesto/credential-issuer";
import { holder } from "@attesto/holder";
import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import type { ServiceModule } from "@attesto/runtime/service";
import { createTestDatabase, rewrapSealedColumn, type TestDatabase } from "@attesto/store";
import { trustRegistry } from "@attesto/trust-registry";
import { verifier } from "@attesto/verifier";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";

/**
 * KEK rotation over every table that holds envelopes: each service declares its envelope columns
 * (`sealedColumns`, rewrapped at start-up); this test checks that the declaration names every
 * such column of the service's schema, and that rewrapping one moves it to the new KEK, after which
 * the old KEK can go. (Custody keys: services/trust-registry/test/custody/kek-rotation.test.ts; the
 * ledger key is resealed when read: services/ledger tests.)
 */
const kek = (id: string) => ({ id, key: new Uint8Array(randomBytes(32)) });
const services: ServiceModule[] = [holder, credentialIssuer, verifier, trustRegistry] as ServiceModule[];
/** Envelope-holding columns outside `sealedColumns`, with where they are rotated. */
const rotatedElsewhere = new Set(["custody_keys.sealed_private_key"]);

const databases: TestDatabase<unknown>[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

describe.each(services.map((service) => [service.definition.name, service] as const))("%s", (_name, service) => {
  it("declares every envelope column of its schema, and each rotates to a new KEK", async () => {
    const database = await createTestDatabase<unknown>({
      prefix: "rotation",
      migrations: service.definition.migrations,
    });
    databases.push(database);
    const { rows } = await sql<{ table_name: string; column_name: string }>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = ${database.schema} AND data_type = 'text'
        AND (column_name LIKE '%sealed%' OR column_name LIKE '%envelope%')
      ORDER BY table_name, column_name`.execute(database.db);
    const declared = service.definition.sealedColumns ?? [];
    expect(declared.length).toBeGreaterThan(0);
    expect(rows.map((r) => `${r.table_name}.${r.column_name}`).filter((c) => !rotatedElsewhere.has(c))).toEqual(
      declared.map((c) => `${c.table}.${c.column}`).sort(),
    );

    // Each declared column: a value sealed under A (the row's own context) is rewrapped under B.
    const [a, b] = [kek("a"), kek("b")];
    for (const column of declared) {
      const scratch = `${column.table}_${column.column}_scratch`;
      await sql`CREATE TABLE ${sql.table(`${database.schema}.${scratch}`)} (${sql.ref(column.key)} text PRIMARY KEY, ${sql.ref(column.column)} text)`.execute(
        database.db,
      );
      const key = "row-1";
      await sql`INSERT INTO ${sql.table(`${database.schema}.${scratch}`)} VALUES (${key}, ${createEnvelopeSealer([a]).seal(Buffer.from("secret"), column.context(key))})`.execute(
        database.db,
      );
      const rotated = createEnvelopeSealer([b, a]);
      const target = { ...column, table: scratch };
      const scoped = database.db.withSchema(database.schema);
      expect(await rewrapSealedColumn(scoped, rotated, target)).toEqual({ rewrapped: 1, failed: 0 });
      expect(await rewrapSealedColumn(scoped, rotated, target)).toEqual({ rewrapped: 0, failed: 0 });
      const stored = await sql<{
        v: string;
      }>`SELECT ${sql.ref(column.column)} AS v FROM ${sql.table(`${database.schema}.${scratch}`)}`.execute(database.db);
      const envelope = stored.rows[0]?.v ?? "";
      expect(rotated.keyIdOf(envelope)).toBe("b");
      expect(Buffer.from(createEnvelopeSealer([b]).open(envelope, column.context(key))).toString()).toBe("secret");
    }
  });
});
