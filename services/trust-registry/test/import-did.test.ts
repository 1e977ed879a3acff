import { ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import { invalidFieldsBody } from "@attesto/runtime/testing";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessTokenOf, bearer, registerOrganization, startRegistryWithOrganization } from "./support/organizations.js";
import type { TestRegistry } from "./support/test-registry.js";

type CustodyTables = { custody_keys: { key_id: string; tenant: string } };

describe("POST /v1/did/import", () => {
  let registry: TestRegistry;
  let token: string;
  let tenant: string;
  beforeAll(async () => {
    ({ registry, tenant, token } = await startRegistryWithOrganization());
  });
  afterAll(async () => {
    await registry?.close();
  });

  const importDid = (payload: unknown, accessToken = token) =>
    registry.app.inject({
      method: "POST",
      url: "/v1/did/import",
      headers: bearer(accessToken),
      payload: payload as object,
    });

  /** A DID anchored on the ledger by someone holding `privateJwk`. */
  const anchoredDid = () => {
    const privateJwk = generateEd25519Jwk();
    const { did, keyId } = registry.ledger.anchor(ed25519PublicJwk(privateJwk));
    return { did, keyId, privateKey: privateJwk.d };
  };

  const custodyKeyCount = async () =>
    (await (registry.db as never as Kysely<CustodyTables>).selectFrom("custody_keys").select("key_id").execute())
      .length;

  /** A field the route schema refuses: 400 listing it in `errors`. */
  const expectInvalidField = async (payload: unknown, message: string) => {
    const response = await importDid(payload);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: invalidFieldsBody(message),
    });
  };
  /** A well-formed import the ledger check refuses: 400 `{error, message}`. */
  const expectRefused = async (payload: unknown, message: string) => {
    const response = await importDid(payload);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: { error: "invalid_request", message },
    });
  };

  it("takes custody of the DID's key and answers {did, method, status}", async () => {
    const { did, keyId, privateKey } = anchoredDid();
    const response = await importDid({ did, private_key: privateKey });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 201,
      body: { did, method: "LEDGER", status: "active" },
    });
    const row = await registry.db
      .selectFrom("tenant_dids")
      .selectAll()
      .where("did", "=", did)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      did,
      tenant,
      key_id: keyId,
      custody_key_id: expect.any(String),
      method: "LEDGER",
      source: "imported",
      status: "active",
      created_at: expect.any(Date),
    });
    const held = await registry.custody.describeKey(tenant, row.custody_key_id);
    expect(held.publicJwk.x).toBe(registry.ledger.publicJwkOf(did).x);
  });

  it("is idempotent for a DID the tenant already holds (201 again, nothing new in custody)", async () => {
    const { did, privateKey } = anchoredDid();
    expect((await importDid({ did, private_key: privateKey })).statusCode).toBe(201);
    const keys = await custodyKeyCount();
    const again = await importDid({ did, private_key: privateKey });
    expect({ status: again.statusCode, body: again.json() }).toEqual({
      status: 201,
      body: { did, method: "LEDGER", status: "active" },
    });
    expect(await custodyKeyCount()).toBe(keys);
  });

  it("is idempotent for a DID the tenant created with POST /v1/did", async () => {
    const created = (await registry.app.inject({ method: "POST", url: "/v1/did", headers: bearer(token) })).json();
    const response = await importDid({ did: created.did, private_key: created.private_key });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 201,
      body: { did: created.did, method: "LEDGER", status: "active" },
    });
  });

  it("refuses with 409 a DID another tenant holds", async () => {
    const { did, privateKey } = anchoredDid();
    const other = await registerOrganization(registry.app);
    const otherToken = await accessTokenOf(registry.app, other);
    expect((await importDid({ did, private_key: privateKey }, otherToken)).statusCode).toBe(201);
    const response = await importDid({ did, private_key: privateKey });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 409,
      body: { error: "conflict", message: "DID is already registered to another organization" },
    });
  });

  describe("400", () => {
    const validKey = () => anchoredDid().privateKey;

    it.each([
      [{}, "did is required"],
      [{ did: 5 }, "did must be a string"],
      [{ did: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK" }, "did must start with did:ledger:"],
      [{ did: "DID:LEDGER:abc" }, "did must start with did:ledger:"],
      [{ did: "did:ledger:" }, "did must be a did:ledger DID (did:ledger:<id>)"],
      [{ did: "did:ledger:abc def" }, "did must be a did:ledger DID (did:ledger:<id>)"],
    ])("rejects the did of %j", async (body, message) => {
      await expectInvalidField({ private_key: validKey(), ...body }, message);
    });

    it.each([
      [undefined, "private_key is required"],
      [42, "private_key must be a string"],
      ["not base64url!", "private_key must be a base64url Ed25519 private key (32 bytes)"],
      [Buffer.alloc(16, 1).toString("base64url"), "private_key must be a base64url Ed25519 private key (32 bytes)"],
      [Buffer.alloc(32, 1).toString("base64"), "private_key must be a base64url Ed25519 private key (32 bytes)"],
      ["", "private_key must be a base64url Ed25519 private key (32 bytes)"],
    ])("rejects the private_key %j", async (privateKey, message) => {
      const { did } = anchoredDid();
      await expectInvalidField(privateKey === undefined ? { did } : { did, private_key: privateKey }, message);
    });

    it("rejects a DID the ledger does not know", async () => {
      await expectRefused(
        { did: "did:ledger:00000000000000000000000000000000", private_key: validKey() },
        "DID not found on the ledger",
      );
    });

    it("rejects a private key that is not the DID's key (ownership check)", async () => {
      const { did } = anchoredDid();
      const before = await custodyKeyCount();
      await expectRefused({ did, private_key: generateEd25519Jwk().d }, "Private key does not match the DID");
      expect(await custodyKeyCount()).toBe(before);
      expect(
        await registry.db.selectFrom("tenant_dids").select("did").where("did", "=", did).executeTakeFirst(),
      ).toBeUndefined();
    });

    it("rejects a deactivated DID", async () => {
      const { did, privateKey } = anchoredDid();
      registry.ledger.dids.get(did)!.deactivated = true;
      await expectRefused({ did, private_key: privateKey }, "DID is deactivated on the ledger");
    });
  });
});

describe("POST /v1/did/import when the ledger is unreachable", () => {
  let registry: TestRegistry;
  let token: string;
  beforeAll(async () => {
    ({ registry, token } = await startRegistryWithOrganization({ ledger: "down" }));
  });
  afterAll(async () => {
    await registry?.close();
  });

  it("answers 503 and stores nothing", async () => {
    const response = await registry.app.inject({
      method: "POST",
      url: "/v1/did/import",
      headers: bearer(token),
      payload: { did: "did:ledger:0123456789abcdef", private_key: generateEd25519Jwk().d },
    });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 503,
      body: { error: "unavailable", message: "Ledger is unavailable" },
    });
    expect(await registry.db.selectFrom("tenant_dids").selectAll().execute()).toEqual([]);
  });
});
