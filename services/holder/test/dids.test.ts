import { ed25519JwkFromSeed, ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import { invalidFieldsBody } from "@attesto/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestHolder, type TestHolder } from "./support/test-holder.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

describe("holder DIDs: create, import, list, delete", () => {
  let holder: TestHolder;
  beforeAll(async () => {
    holder = await startTestHolder();
  });
  afterAll(() => holder.close());
  beforeEach(() => {
    holder.ledger.down = false;
  });

  const post = (url: string, headers: Record<string, string>, payload: unknown) =>
    holder.app.inject({ method: "POST", url, headers, payload: payload as never });
  const list = async (headers: Record<string, string>) =>
    (await holder.app.inject({ method: "GET", url: "/v1/did", headers })).json().dids as Array<Record<string, unknown>>;

  describe("POST /v1/did", () => {
    it("201: a did:ledger DID anchored with a fresh Ed25519 key; the private key is answered once and never stored", async () => {
      const account = await holder.account();
      const response = await post("/v1/did", account.headers, { method: "LEDGER" });
      expect(response.statusCode).toBe(201);
      expect(response.headers["cache-control"]).toBe("no-store");
      const body = response.json();
      expect(body).toEqual({
        did: expect.stringMatching(/^did:ledger:/),
        private_key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
      const seed = Buffer.from(body.private_key, "base64url");
      expect(seed).toHaveLength(32);
      expect(ed25519PublicJwk(ed25519JwkFromSeed(seed))).toEqual(holder.ledger.publicJwkOf(body.did));

      const dump = await holder.database.pool.query(
        `SELECT row_to_json(d)::text AS row FROM ${holder.database.schema}.holder_dids d`,
      );
      const text = dump.rows.map((r) => r.row).join("\n");
      expect(text).toContain(body.did);
      expect(text).not.toContain(body.private_key);
      expect(await list(account.headers)).toEqual([
        { did: body.did, method: "LEDGER", status: "active", created_at: expect.stringMatching(ISO) },
      ]);
    });

    it("accepts the method in lower case", async () => {
      const account = await holder.account();
      expect((await post("/v1/did", account.headers, { method: "ledger" })).statusCode).toBe(201);
    });

    it.each([
      [{ method: "KEY" }, { error: "invalid_request", message: "DID method is not supported (supported: LEDGER)" }],
      [{ method: "WEB" }, { error: "invalid_request", message: "DID method is not supported (supported: LEDGER)" }],
      [{}, invalidFieldsBody("method is required")],
      [{ method: 1 }, invalidFieldsBody("method must be a string")],
    ])("400 for %j", async (payload, body) => {
      const account = await holder.account();
      const response = await post("/v1/did", account.headers, payload);
      expect([response.statusCode, response.json()]).toEqual([400, body]);
      expect(await list(account.headers)).toEqual([]);
    });

    it("503 when the ledger is unreachable; nothing is stored", async () => {
      const account = await holder.account();
      holder.ledger.down = true;
      const response = await post("/v1/did", account.headers, { method: "LEDGER" });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ error: "unavailable", message: "Ledger is unavailable" });
      holder.ledger.down = false;
      expect(await list(account.headers)).toEqual([]);
    });
  });

  describe("POST /v1/did/import", () => {
    function anchored() {
      const key = generateEd25519Jwk();
      return { ...holder.ledger.anchor(ed25519PublicJwk(key)), privateKey: key.d };
    }

    it("201 {did, method, status} after the ownership check; the DID is listed", async () => {
      const account = await holder.account();
      const { did, privateKey } = anchored();
      const response = await post("/v1/did/import", account.headers, { did, private_key: privateKey });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({ did, method: "LEDGER", status: "active" });
      expect((await list(account.headers)).map((d) => d.did)).toEqual([did]);
    });

    it("importing again answers the same (idempotent)", async () => {
      const account = await holder.account();
      const { did, privateKey } = anchored();
      await post("/v1/did/import", account.headers, { did, private_key: privateKey });
      const again = await post("/v1/did/import", account.headers, { did, private_key: privateKey });
      expect(again.statusCode).toBe(201);
      expect(await list(account.headers)).toHaveLength(1);
    });

    it("two holders who both prove the key may both hold the DID", async () => {
      const { did, privateKey } = anchored();
      const [a, b] = [await holder.account(), await holder.account()];
      expect((await post("/v1/did/import", a.headers, { did, private_key: privateKey })).statusCode).toBe(201);
      expect((await post("/v1/did/import", b.headers, { did, private_key: privateKey })).statusCode).toBe(201);
    });

    it("400 'ownership check failed' when the key is not the DID's", async () => {
      const account = await holder.account();
      const { did } = anchored();
      const response = await post("/v1/did/import", account.headers, { did, private_key: generateEd25519Jwk().d });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: "invalid_request",
        message: "DID ownership check failed: private_key does not match a key of the DID document",
      });
      expect(await list(account.headers)).toEqual([]);
    });

    it.each([
      [
        { did: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", private_key: "x".repeat(43) },
        "did must start with did:ledger:",
      ],
      [{ did: "did:web:example.com", private_key: "x".repeat(43) }, "did must start with did:ledger:"],
      [
        { did: "did:ledger:abc", private_key: "too-short" },
        "private_key must be a base64url Ed25519 private key (32 bytes)",
      ],
      [
        { did: "did:ledger:abc", private_key: "not base64url!!" },
        "private_key must be a base64url Ed25519 private key",
      ],
      [{ did: "did:ledger:abc" }, "private_key is required"],
      [{ private_key: "x".repeat(43) }, "did is required"],
    ])("400 for %j", async (payload, message) => {
      const account = await holder.account();
      const response = await post("/v1/did/import", account.headers, payload);
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toContain(message);
    });

    it("400 for a DID the ledger does not know, and for a deactivated one", async () => {
      const account = await holder.account();
      const unknown = await post("/v1/did/import", account.headers, {
        did: "did:ledger:0000000000000000",
        private_key: generateEd25519Jwk().d,
      });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().message).toBe("DID not found on the ledger");
      const { did, privateKey } = anchored();
      holder.ledger.dids.get(did)!.deactivated = true;
      const deactivated = await post("/v1/did/import", account.headers, { did, private_key: privateKey });
      expect(deactivated.statusCode).toBe(400);
      expect(deactivated.json().message).toBe("DID is deactivated on the ledger");
    });

    it("503 when the ledger is unreachable", async () => {
      const account = await holder.account();
      const { did, privateKey } = anchored();
      holder.ledger.down = true;
      const response = await post("/v1/did/import", account.headers, { did, private_key: privateKey });
      expect(response.statusCode).toBe(503);
    });
  });

  describe("GET /v1/did and DELETE /v1/did/:did", () => {
    it("lists only the caller's DIDs, oldest first", async () => {
      const [a, b] = [await holder.account(), await holder.account()];
      const first = (await post("/v1/did", a.headers, { method: "LEDGER" })).json().did;
      holder.clock.advance(1);
      const second = (await post("/v1/did", a.headers, { method: "LEDGER" })).json().did;
      const other = (await post("/v1/did", b.headers, { method: "LEDGER" })).json().did;
      expect((await list(a.headers)).map((d) => d.did)).toEqual([first, second]);
      expect((await list(b.headers)).map((d) => d.did)).toEqual([other]);
    });

    it("204 for the URL-encoded DID; it is gone from the list; a second delete is 404", async () => {
      const account = await holder.account();
      const { did } = (await post("/v1/did", account.headers, { method: "LEDGER" })).json();
      const url = `/v1/did/${encodeURIComponent(did)}`;
      const deleted = await holder.app.inject({ method: "DELETE", url, headers: account.headers });
      expect(deleted.statusCode).toBe(204);
      expect(deleted.body).toBe("");
      expect(await list(account.headers)).toEqual([]);
      const again = await holder.app.inject({ method: "DELETE", url, headers: account.headers });
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual({ error: "not_found", message: "DID not found" });
      // The DID itself stays on the ledger.
      expect(holder.ledger.dids.get(did)?.deactivated).toBe(false);
    });

    it("a DID URL (with its key fragment) names its DID; unencoded colons work too", async () => {
      const account = await holder.account();
      const first = (await post("/v1/did", account.headers, { method: "LEDGER" })).json().did;
      const second = (await post("/v1/did", account.headers, { method: "LEDGER" })).json().did;
      const byDidUrl = await holder.app.inject({
        method: "DELETE",
        url: `/v1/did/${encodeURIComponent(`${first}#key-1`)}`,
        headers: account.headers,
      });
      expect(byDidUrl.statusCode).toBe(204);
      const raw = await holder.app.inject({ method: "DELETE", url: `/v1/did/${second}`, headers: account.headers });
      expect(raw.statusCode).toBe(204);
    });

    it("404, not 403, for another holder's DID, which stays", async () => {
      const [owner, intruder] = [await holder.account(), await holder.account()];
      const { did } = (await post("/v1/did", owner.headers, { method: "LEDGER" })).json();
      const response = await holder.app.inject({
        method: "DELETE",
        url: `/v1/did/${encodeURIComponent(did)}`,
        headers: intruder.headers,
      });
      expect(response.statusCode).toBe(404);
      expect((await list(owner.headers)).map((d) => d.did)).toEqual([did]);
    });
  });
});
