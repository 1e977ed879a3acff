import { createHash } from "node:crypto";
import { ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import { verify } from "@node-rs/argon2";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessTokenOf, bearer, registerOrganization } from "./support/organizations.js";
import { startTestRegistry, type TestRegistry } from "./support/test-registry.js";

/** Every row of every table of the registry's schema, as JSON text. */
async function dumpSchema(registry: TestRegistry): Promise<string> {
  const schema = registry.database.schema;
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema} ORDER BY table_name
  `.execute(registry.database.db);
  expect(tables.rows.map((t) => t.table_name)).toEqual(
    expect.arrayContaining(["tenants", "api_keys", "tenant_dids", "tenant_credential_configurations", "custody_keys"]),
  );
  const dumps: string[] = [];
  for (const { table_name } of tables.rows) {
    const rows = await sql<{
      row: string;
    }>`SELECT row_to_json(t)::text AS row FROM ${sql.table(`${schema}.${table_name}`)} t`.execute(registry.database.db);
    dumps.push(...rows.rows.map((r) => r.row));
  }
  return dumps.join("\n");
}

describe("secrets at rest", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(async () => {
    await registry?.close();
  });

  it("stores the API key as SHA-256 and the password as argon2id only; private keys never in the clear", async () => {
    const organization = await registerOrganization(registry.app, { email: "secret-keeper@example.com" });
    const token = await accessTokenOf(registry.app, organization);
    const created = (await registry.app.inject({ method: "POST", url: "/v1/did", headers: bearer(token) })).json();
    const importedKey = generateEd25519Jwk();
    const imported = registry.ledger.anchor(ed25519PublicJwk(importedKey));
    await registry.app.inject({
      method: "POST",
      url: "/v1/did/import",
      headers: bearer(token),
      payload: { did: imported.did, private_key: importedKey.d },
    });

    const dump = await dumpSchema(registry);
    expect(dump).toContain(organization.tenant);
    for (const secret of [
      organization.apiKey,
      organization.apiKey.split("_").at(-1)!,
      organization.password,
      created.private_key,
      importedKey.d,
      Buffer.from(created.private_key, "base64url").toString("hex"),
      Buffer.from(importedKey.d, "base64url").toString("base64"),
    ]) {
      expect(dump).not.toContain(secret);
    }

    const [key] = await registry.db
      .selectFrom("api_keys")
      .select("key_hash")
      .where("account_uuid", "=", organization.uuid)
      .execute();
    expect(key?.key_hash).toBe(createHash("sha256").update(organization.apiKey).digest("hex"));

    const account = await registry.db
      .selectFrom("tenants")
      .select("password_hash")
      .where("account_uuid", "=", organization.uuid)
      .executeTakeFirstOrThrow();
    expect(account.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verify(account.password_hash!, organization.password)).toBe(true);
  });
});
