import { createPublicKey, verify } from "node:crypto";
import { ed25519JwkFromSeed } from "@attesto/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startRegistryWithOrganization } from "./support/organizations.js";
import type { TestRegistry } from "./support/test-registry.js";

const LEDGER_DID = /^did:ledger:[0-9a-f]{32}$/;

describe("POST /v1/did", () => {
  let registry: TestRegistry;
  let token: string;
  let tenant: string;
  beforeAll(async () => {
    ({ registry, tenant, token } = await startRegistryWithOrganization());
  });
  afterAll(async () => {
    await registry?.close();
  });

  const createDid = (options: { payload?: string | object; headers?: Record<string, string> } = {}) =>
    registry.app.inject({
      method: "POST",
      url: "/v1/did",
      headers: { ...bearer(token), ...options.headers },
      ...(options.payload === undefined ? {} : { payload: options.payload }),
    });

  it("creates a did:ledger DID and returns the organization DID once", async () => {
    const response = await createDid({ payload: {} });
    expect(response.statusCode).toBe(201);
    expect(response.headers["cache-control"]).toBe("no-store");
    const body = response.json();
    expect(body).toEqual({
      did: expect.stringMatching(LEDGER_DID),
      key_id: `${body.did}#key-1`,
      public_key_jwk: {
        kty: "OKP",
        use: "sig",
        key_ops: ["sign", "verify"],
        alg: "EdDSA",
        kid: `${body.did}#key-1`,
        crv: "Ed25519",
        x: registry.ledger.publicJwkOf(body.did).x,
      },
      private_key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(Object.keys(body)).toEqual(["did", "key_id", "public_key_jwk", "private_key"]);
    // The private key returned is the DID's key.
    expect(ed25519JwkFromSeed(Buffer.from(body.private_key, "base64url")).x).toBe(body.public_key_jwk.x);
  });

  it("records the DID for the tenant and keeps its key in custody for signing", async () => {
    const body = (await createDid()).json();
    const row = await registry.db
      .selectFrom("tenant_dids")
      .selectAll()
      .where("did", "=", body.did)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      did: body.did,
      tenant,
      key_id: body.key_id,
      method: "LEDGER",
      source: "created",
      status: "active",
    });

    const held = await registry.custody.describeKey(tenant, row.custody_key_id);
    expect(held.publicJwk).toMatchObject({ kty: "OKP", crv: "Ed25519", x: body.public_key_jwk.x });
    const message = new TextEncoder().encode("header.payload");
    const { signature } = await registry.custody.sign(tenant, row.custody_key_id, message);
    const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: body.public_key_jwk.x }, format: "jwk" });
    expect(verify(null, message, publicKey, signature)).toBe(true);
  });

  it.each([
    ["no body at all", {}],
    ["an empty JSON body", { payload: "", headers: { "content-type": "application/json" } }],
    // fetch(url, { method: "POST", body: "" }) labels the empty body text/plain.
    ["an empty text/plain body", { payload: "", headers: { "content-type": "text/plain;charset=UTF-8" } }],
    ["{}", { payload: {} }],
    ['{"method":"LEDGER"}', { payload: { method: "LEDGER" } }],
  ])("accepts %s", async (_label, options) => {
    const response = await createDid(options);
    expect(response.statusCode, response.body).toBe(201);
  });

  it("rejects another DID method", async () => {
    const response = await createDid({ payload: { method: "KEY" } });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: {
        error: "invalid_request",
        message: "method must be LEDGER",
        errors: [{ field: "method", message: "must be LEDGER" }],
      },
    });
  });

  it("rejects malformed JSON", async () => {
    const response = await createDid({ payload: "{", headers: { "content-type": "application/json" } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe("invalid_request");
  });

  it("takes the tenant from the token, never from the body", async () => {
    const body = (await createDid({ payload: { tenant: "someone-else" } })).json();
    const row = await registry.db
      .selectFrom("tenant_dids")
      .select("tenant")
      .where("did", "=", body.did)
      .executeTakeFirstOrThrow();
    expect(row.tenant).toBe(tenant);
  });
});

describe("POST /v1/did when the ledger is unreachable", () => {
  let registry: TestRegistry;
  let token: string;
  beforeAll(async () => {
    ({ registry, token } = await startRegistryWithOrganization({ ledger: "down" }));
  });
  afterAll(async () => {
    await registry?.close();
  });

  it("answers 503 and stores nothing", async () => {
    const response = await registry.app.inject({ method: "POST", url: "/v1/did", headers: bearer(token) });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 503,
      body: { error: "unavailable", message: "Ledger is unavailable" },
    });
    expect(await registry.db.selectFrom("tenant_dids").selectAll().execute()).toEqual([]);
    const custodyKeys = await (registry.db as never as import("kysely").Kysely<{ custody_keys: { key_id: string } }>)
      .selectFrom("custody_keys")
      .select("key_id")
      .execute();
    expect(custodyKeys).toEqual([]);
  });
});
