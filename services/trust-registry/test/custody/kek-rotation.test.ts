import { generateKeyPairSync, randomUUID } from "node:crypto";
import type { TestDatabase } from "@attesto/store";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HeldKey } from "../../src/custody/index.js";
import { custodyDatabase, custodyOn, newKek, sealCustodyColumns, signJws, verifyWithJwk } from "./custody-test-kit.js";

const kekA = newKek("kek-a");
const kekB = newKek("kek-b");

let database: TestDatabase<unknown>;
beforeAll(async () => {
  database = await custodyDatabase();
});
afterAll(() => database?.drop());

const kekIds = async () => {
  const { rows } = await sql<{ kek_id: string; n: number }>`
    SELECT kek_id, count(*)::int AS n FROM ${sql.table(`${database.schema}.custody_keys`)} GROUP BY kek_id ORDER BY kek_id`.execute(
    database.db,
  );
  return Object.fromEntries(rows.map((row) => [row.kek_id, row.n]));
};

const signsAndVerifies = async (keyEncryptionKeys: (typeof kekA)[], held: HeldKey) => {
  const custody = custodyOn(database, { keyEncryptionKeys });
  const jws = await signJws(custody, held.tenant, held.keyId, { alg: held.alg }, { ok: true });
  return verifyWithJwk(jws, held.publicJwk, held.alg);
};

describe("KEK rotation", () => {
  const held: HeldKey[] = [];

  it("creates keys and a signing certificate (CA keys included) under KEK A", async () => {
    const custody = custodyOn(database, { keyEncryptionKeys: [kekA] });
    held.push(await custody.generateKey("acme", "EdDSA"), await custody.generateKey("acme", "ES256"));
    await custody.signingCertificate("acme");
    // 2 tenant keys + the certificate key + root and issuing CA keys.
    expect(await kekIds()).toEqual({ "kek-a": 5 });
  });

  it("cannot open those keys with only KEK B, and says which KEK is missing", async () => {
    const [key] = held;
    await expect(signsAndVerifies([kekB], key as HeldKey)).rejects.toThrow(
      "Key-encryption key 'kek-a' is not configured",
    );
  });

  it("reads old keys and writes new ones under B when configured [B, A]", async () => {
    const custody = custodyOn(database, { keyEncryptionKeys: [kekB, kekA] });
    for (const key of held) await expect(signsAndVerifies([kekB, kekA], key)).resolves.toBeDefined();
    held.push(await custody.generateKey("acme", "EdDSA"));
    expect(await kekIds()).toEqual({ "kek-a": 5, "kek-b": 1 });
  });

  it("rewraps every key not under B, once", async () => {
    const custody = custodyOn(database, { keyEncryptionKeys: [kekB, kekA] });
    expect(await custody.rewrapKeys()).toBe(5);
    expect(await kekIds()).toEqual({ "kek-b": 6 });
    expect(await custody.rewrapKeys()).toBe(0);
  });

  it("signs with every key, and still issues certificates, with only KEK B", async () => {
    for (const key of held) await expect(signsAndVerifies([kekB], key)).resolves.toBeDefined();
    const custody = custodyOn(database, { keyEncryptionKeys: [kekB] });
    // A new tenant's certificate needs the issuing CA key, which was rewrapped too.
    const certificate = await custody.signingCertificate("globex");
    const jws = await signJws(custody, "globex", certificate.keyId, { alg: "ES256" }, { ok: true });
    await expect(verifyWithJwk(jws, certificate.publicJwk, "ES256")).resolves.toBeDefined();
  });

  it("refuses to rewrap with a KEK of the right id but the wrong bytes", async () => {
    const custody = custodyOn(database, { keyEncryptionKeys: [newKek("kek-c"), newKek("kek-b")] });
    await expect(custody.rewrapKeys()).rejects.toThrow(/cannot be opened/);
    expect(Object.keys(await kekIds())).toEqual(["kek-b"]);
  });
});

describe("keys stored in format 0 (columns, before migration 0104)", () => {
  let upgraded: TestDatabase<unknown>;
  beforeAll(async () => {
    upgraded = await custodyDatabase();
  });
  afterAll(() => upgraded?.drop());

  it("still sign; RewrapKeys reseals them in the current format under the current KEK, once", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const keyId = randomUUID();
    const secret = privateKey.export({ format: "der", type: "pkcs8" });
    const publicJwk = publicKey.export({ format: "jwk" });
    await sql`INSERT INTO ${sql.table(`${upgraded.schema}.custody_keys`)}
      (key_id, tenant, alg, public_jwk, kek_id, wrapped_dek, iv, tag, ciphertext)
      VALUES (${keyId}, 'acme', 'EdDSA', ${JSON.stringify(publicJwk)}::jsonb, ${sql.join(
        Object.values(sealCustodyColumns(kekA, { tenant: "acme", keyId }, secret)).map((v) => sql`${v}`),
      )})`.execute(upgraded.db);
    const sign = async (keys: (typeof kekA)[]) => {
      const custody = custodyOn(upgraded, { keyEncryptionKeys: keys });
      return verifyWithJwk(await signJws(custody, "acme", keyId, { alg: "EdDSA" }, { ok: 1 }), publicJwk, "EdDSA");
    };
    await expect(sign([kekA])).resolves.toBeDefined();
    // Another tenant cannot use it (the owner is bound into the envelope and checked first).
    await expect(
      signJws(custodyOn(upgraded, { keyEncryptionKeys: [kekA] }), "globex", keyId, { alg: "EdDSA" }, {}),
    ).rejects.toThrow("Key not found");

    // Even under the same KEK, RewrapKeys moves the row to the current format.
    expect(await custodyOn(upgraded, { keyEncryptionKeys: [kekA] }).rewrapKeys()).toBe(1);
    const row = async () =>
      (
        await sql<{ kek_id: string; sealed_private_key: string | null; ciphertext: Buffer | null }>`
          SELECT kek_id, sealed_private_key, ciphertext FROM ${sql.table(`${upgraded.schema}.custody_keys`)}
          WHERE key_id = ${keyId}`.execute(upgraded.db)
      ).rows[0];
    expect(await row()).toMatchObject({
      kek_id: "kek-a",
      sealed_private_key: expect.stringMatching(/^v1\.kek-a\./),
      ciphertext: null,
    });
    expect(await custodyOn(upgraded, { keyEncryptionKeys: [kekA] }).rewrapKeys()).toBe(0);

    // Then rotated like any other key.
    expect(await custodyOn(upgraded, { keyEncryptionKeys: [kekB, kekA] }).rewrapKeys()).toBe(1);
    expect((await row())?.kek_id).toBe("kek-b");
    await expect(sign([kekB])).resolves.toBeDefined();
  });
});
