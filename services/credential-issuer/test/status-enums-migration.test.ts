import { randomUUID } from "node:crypto";
import { createTestDatabase, migrateToLatest, type TestDatabase } from "@attesto/store";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations } from "../src/store/migrations/index.js";

const before0012 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0012"));

/** Migration 0012: the `IN (…)` CHECKs of `offers` and `credentials` become enum types, the same closed sets. */
describe("migration 0012: status and mode columns as enum types", () => {
  let database: TestDatabase<unknown>;
  const table = (name: string) => sql.id(database.schema, name);
  const offerId = randomUUID();
  const credentialId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase<unknown>({ prefix: "issuer_migration_0012", migrations: before0012 });
    // A row as the CHECKs admitted it (text columns), converted by the migration.
    await sql`INSERT INTO ${table("offers")} (id, tenant, credential_configuration_id, vct, claims, signing_mode,
        flow, pre_authorized_code_hash, pre_authorized_code_sealed, status, expires_at, created_at, redeemed_at)
      VALUES (${offerId}, 'acme', 'pid', 'urn:pid', '{}', 'x509', 'pre-authorized', 'h', 's', 'redeemed',
        now(), now(), now())`.execute(database.db);
    await sql`INSERT INTO ${table("credentials")} (id, tenant, offer_id, credential_configuration_id, vct,
        issuer_jwt_sha256, holder_key_thumbprint, status, issued_at, expires_at)
      VALUES (${credentialId}, 'acme', ${offerId}, 'pid', 'urn:pid', 'digest', 'thumbprint', 'suspended',
        now(), now())`.execute(database.db);
    await migrateToLatest(database.db, database.schema, migrations);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("keeps every existing value and types the columns with the enums", async () => {
    const offer = await sql<Record<string, string>>`
      SELECT signing_mode, flow, status FROM ${table("offers")} WHERE id = ${offerId}`.execute(database.db);
    expect(offer.rows).toEqual([{ signing_mode: "x509", flow: "pre-authorized", status: "redeemed" }]);
    const credential = await sql<{ status: string }>`
      SELECT status FROM ${table("credentials")} WHERE id = ${credentialId}`.execute(database.db);
    expect(credential.rows).toEqual([{ status: "suspended" }]);

    const types = await sql<{ column: string; type: string; labels: string[] }>`
      SELECT c.relname || '.' || a.attname AS column, t.typname AS type,
        array(SELECT enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) AS labels
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_type t ON t.oid = a.atttypid
      WHERE c.relnamespace = ${database.schema}::regnamespace AND t.typtype = 'e'
      ORDER BY 1`.execute(database.db);
    expect(types.rows).toEqual([
      { column: "credentials.status", type: "credential_status", labels: ["active", "suspended", "revoked"] },
      { column: "offers.flow", type: "offer_flow", labels: ["pre-authorized", "authorization-code"] },
      { column: "offers.signing_mode", type: "offer_signing_mode", labels: ["did", "x509"] },
      { column: "offers.status", type: "offer_status", labels: ["offered", "redeemed"] },
    ]);
  });

  it("refuses any other value, as the CHECKs did, and keeps the CHECKs that relate columns", async () => {
    const refusal = (statement: Promise<unknown>) =>
      statement.then(
        () => "accepted",
        (error: { code?: string }) => error.code,
      );
    // 22P02: not a label of the enum.
    expect(
      await refusal(
        sql`UPDATE ${table("offers")} SET status = ${"expired"} WHERE id = ${offerId}`.execute(database.db),
      ),
    ).toBe("22P02");
    expect(
      await refusal(sql`UPDATE ${table("offers")} SET flow = ${"implicit"} WHERE id = ${offerId}`.execute(database.db)),
    ).toBe("22P02");
    expect(
      await refusal(
        sql`UPDATE ${table("offers")} SET signing_mode = ${"none"} WHERE id = ${offerId}`.execute(database.db),
      ),
    ).toBe("22P02");
    expect(
      await refusal(
        sql`UPDATE ${table("credentials")} SET status = ${"deleted"} WHERE id = ${credentialId}`.execute(database.db),
      ),
    ).toBe("22P02");
    // 23514: the grant and key CHECKs still hold (an X.509 offer has no DID key; a pre-authorized one no issuer_state).
    expect(
      await refusal(
        sql`UPDATE ${table("offers")} SET issuer_state = 'state' WHERE id = ${offerId}`.execute(database.db),
      ),
    ).toBe("23514");
    expect(
      await refusal(sql`UPDATE ${table("offers")} SET signing_mode = 'did' WHERE id = ${offerId}`.execute(database.db)),
    ).toBe("23514");
    expect(
      await refusal(
        sql`UPDATE ${table("credentials")} SET status_idx = 3 WHERE id = ${credentialId}`.execute(database.db),
      ),
    ).toBe("23514");
  });
});
