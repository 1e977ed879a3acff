import { generateEd25519Jwk, generateP256Jwk } from "@attesto/protocol";
import type { TestDatabase } from "@attesto/store";
import { calculateJwkThumbprint } from "jose";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyAlgorithm, KeyCustody } from "../../src/custody/index.js";
import { custodyDatabase, custodyOn, newKek, signJws, verifyWithJwk } from "./custody-test-kit.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let database: TestDatabase<unknown>;
let custody: KeyCustody;

beforeAll(async () => {
  database = await custodyDatabase();
  custody = custodyOn(database, { keyEncryptionKeys: [newKek("kek-1")] });
});
afterAll(() => database?.drop());

const keysTable = () => sql.table(`${database.schema}.custody_keys`);

const readRow = async (keyId: string) => {
  const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${keysTable()} WHERE key_id = ${keyId}`.execute(
    database.db,
  );
  return rows[0];
};

describe.each<[KeyAlgorithm, Record<string, string>]>([
  ["EdDSA", { kty: "OKP", crv: "Ed25519" }],
  ["ES256", { kty: "EC", crv: "P-256" }],
])("generate and sign with %s", (alg, shape) => {
  it("returns a UUID key id and a minimal public JWK", async () => {
    const held = await custody.generateKey("acme", alg);
    expect(held).toMatchObject({ tenant: "acme", alg, publicJwk: shape });
    expect(held.keyId).toMatch(UUID);
    expect(held.createdAt).toBeInstanceOf(Date);
    expect(Object.keys(held.publicJwk).sort()).toEqual(
      alg === "EdDSA" ? ["crv", "kty", "x"] : ["crv", "kty", "x", "y"],
    );
    expect(held.publicJwk).not.toHaveProperty("d");
  });

  it("signs a JWS that jose verifies with the public JWK", async () => {
    const held = await custody.generateKey("acme", alg);
    const jws = await signJws(custody, "acme", held.keyId, { alg, typ: "JWT" }, { sub: "hello" });
    await expect(verifyWithJwk(jws, held.publicJwk, alg)).resolves.toMatchObject({ payload: { sub: "hello" } });
    const { signature } = await custody.sign("acme", held.keyId, new TextEncoder().encode("x.y"));
    expect(signature).toHaveLength(64);
  });

  it("describes the key to its tenant", async () => {
    const held = await custody.generateKey("acme", alg);
    await expect(custody.describeKey("acme", held.keyId)).resolves.toEqual(held);
  });
});

describe("import", () => {
  it.each([
    ["EdDSA", generateEd25519Jwk()],
    ["ES256", generateP256Jwk()],
  ] as const)("takes custody of a %s private JWK and signs with it", async (alg, jwk) => {
    const held = await custody.importKey("acme", alg, { ...jwk });
    const { d: _, ...publicPart } = jwk;
    expect(await calculateJwkThumbprint(held.publicJwk)).toBe(await calculateJwkThumbprint(publicPart));
    const jws = await signJws(custody, "acme", held.keyId, { alg }, { n: 1 });
    await expect(verifyWithJwk(jws, publicPart, alg)).resolves.toMatchObject({ payload: { n: 1 } });
  });

  it("accepts a private JWK with only kty, crv and d", async () => {
    const { kty, crv, d } = generateEd25519Jwk();
    await expect(custody.importKey("acme", "EdDSA", { kty, crv, d })).resolves.toMatchObject({ alg: "EdDSA" });
  });

  it.each([
    ["an Ed25519 key as ES256", "ES256", generateEd25519Jwk(), /kty EC and crv P-256/],
    ["a P-256 key as EdDSA", "EdDSA", generateP256Jwk(), /kty OKP and crv Ed25519/],
    ["a public key only", "ES256", { ...generateP256Jwk(), d: undefined }, /no private key/],
    ["a short d", "EdDSA", { ...generateEd25519Jwk(), d: "AAAA" }, /invalid private JWK/],
    [
      "a d outside the curve order",
      "ES256",
      { ...generateP256Jwk(), d: Buffer.alloc(32, 0xff).toString("base64url") },
      /invalid private JWK/,
    ],
    ["mismatched public members", "ES256", { ...generateP256Jwk(), x: generateP256Jwk().x }, /does not match/],
    ["a conflicting alg member", "EdDSA", { ...generateEd25519Jwk(), alg: "ES256" }, /alg/],
  ] as const)("rejects %s with 400", async (_, alg, jwk, message) => {
    const error = await custody.importKey("acme", alg, { ...jwk }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: "invalid_request" });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain((jwk as { d?: string }).d ?? "never");
  });

  it("rejects an unknown algorithm", async () => {
    await expect(custody.generateKey("acme", "RS256" as KeyAlgorithm)).rejects.toMatchObject({ status: 400 });
  });
});

describe("tenant isolation", () => {
  it("answers 'Key not found' for another tenant's key on sign and describe", async () => {
    const held = await custody.generateKey("acme", "ES256");
    const other = new TextEncoder().encode("a.b");
    await expect(custody.sign("globex", held.keyId, other)).rejects.toMatchObject({
      status: 404,
      message: "Key not found",
    });
    await expect(custody.describeKey("globex", held.keyId)).rejects.toMatchObject({
      status: 404,
      message: "Key not found",
    });
    // Also once the key is cached by its owner's use.
    await custody.sign("acme", held.keyId, other);
    await expect(custody.sign("globex", held.keyId, other)).rejects.toMatchObject({ status: 404 });
    await expect(custody.describeKey("globex", held.keyId)).rejects.toMatchObject({ status: 404 });
  });

  it("answers 'Key not found' for an unknown key id", async () => {
    await expect(custody.describeKey("acme", "00000000-0000-4000-8000-000000000000")).rejects.toMatchObject({
      status: 404,
      message: "Key not found",
    });
  });

  it("refuses an empty or reserved tenant", async () => {
    await expect(custody.generateKey("", "EdDSA")).rejects.toMatchObject({ status: 400 });
    await expect(custody.generateKey("platform:ca", "EdDSA")).rejects.toMatchObject({ status: 400 });
    await expect(custody.signingCertificate("platform:ca")).rejects.toMatchObject({ status: 400 });
  });
});

describe("at rest", () => {
  it("stores no column that reveals the private key", async () => {
    const jwk = generateP256Jwk();
    const held = await custody.importKey("acme", "ES256", { ...jwk });
    const row = await readRow(held.keyId);
    expect(row).toBeDefined();
    const d = Buffer.from(jwk.d, "base64url");
    for (const [column, value] of Object.entries(row ?? {})) {
      const text = Buffer.isBuffer(value) ? value.toString("latin1") : JSON.stringify(value);
      const bytes = Buffer.isBuffer(value) ? value : Buffer.from(text);
      for (const form of [jwk.d, d.toString("base64"), d.toString("hex")]) {
        expect(text, column).not.toContain(form);
      }
      expect(bytes.includes(d), column).toBe(false);
    }
    expect(row).toMatchObject({ tenant: "acme", alg: "ES256", kek_id: "kek-1" });
    expect(row?.public_jwk).toEqual(held.publicJwk);
  });

  it("fails to sign when the stored ciphertext is tampered with", async () => {
    const kek = newKek("kek-1");
    const held = await custodyOn(database, { keyEncryptionKeys: [kek] }).generateKey("acme", "EdDSA");
    const parts = String((await readRow(held.keyId))?.sealed_private_key).split(".");
    const body = Buffer.from(parts[3] ?? "", "base64url");
    body[20] = (body[20] ?? 0) ^ 1;
    parts[3] = body.toString("base64url");
    await sql`UPDATE ${keysTable()} SET sealed_private_key = ${parts.join(".")} WHERE key_id = ${held.keyId}`.execute(
      database.db,
    );
    const fresh = custodyOn(database, { keyEncryptionKeys: [kek] });
    await expect(fresh.sign("acme", held.keyId, new Uint8Array(1))).rejects.toThrow(/cannot be opened/);
  });

  it("fails to sign when one row's envelope is copied onto another", async () => {
    const kek = newKek("kek-1");
    const writer = custodyOn(database, { keyEncryptionKeys: [kek] });
    const a = await writer.generateKey("acme", "EdDSA");
    const b = await writer.generateKey("acme", "EdDSA");
    await sql`UPDATE ${keysTable()} AS b SET sealed_private_key = a.sealed_private_key
      FROM ${keysTable()} AS a WHERE a.key_id = ${a.keyId} AND b.key_id = ${b.keyId}`.execute(database.db);
    const reader = custodyOn(database, { keyEncryptionKeys: [kek] });
    await expect(reader.sign("acme", a.keyId, new Uint8Array(1))).resolves.toBeDefined();
    await expect(reader.sign("acme", b.keyId, new Uint8Array(1))).rejects.toThrow(/cannot be opened/);
  });
});
