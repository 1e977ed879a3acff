import type { TestDatabase } from "@attesto/store";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HeldKey } from "../../src/custody/index.js";
import { custodyDatabase, custodyOn, newKek, signJws, verifyWithJwk } from "./custody-test-kit.js";

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
    await expect(custody.rewrapKeys()).rejects.toThrow(/failed authentication/);
    expect(Object.keys(await kekIds())).toEqual(["kek-b"]);
  });
});
