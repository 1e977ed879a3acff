import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ed25519DidKey } from "./support/holder-keys.js";
import { DIPLOMA_VCT, diplomaClaims, type IssuerDouble, startIssuerDouble } from "./support/issuer-double.js";
import { type Account, startTestHolder, type TestHolder } from "./support/test-holder.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

describe("holder credentials: list, detail, soft delete, isolation", () => {
  let holder: TestHolder;
  let issuer: IssuerDouble;
  beforeAll(async () => {
    holder = await startTestHolder();
    issuer = await startIssuerDouble(holder.ledger);
  });
  afterAll(async () => {
    await issuer.close();
    await holder.close();
  });

  async function received(account: Account, notarize = false) {
    const identity = ed25519DidKey();
    const response = await holder.app.inject({
      method: "POST",
      url: "/v1/oid4vci/receive",
      headers: account.headers,
      payload: {
        credential_offer_uri: issuer.offer().link,
        holder_did: identity.did,
        private_key: identity.privateKey,
        notarize_on_ledger: notarize,
      },
    });
    if (response.statusCode !== 201) throw new Error(response.body);
    return { ...(response.json() as { credential_id: string; raw_credential: string }), identity };
  }
  const get = (url: string, account: Account) => holder.app.inject({ method: "GET", url, headers: account.headers });
  const del = (url: string, account: Account) => holder.app.inject({ method: "DELETE", url, headers: account.headers });

  it("GET /v1/vc lists the caller's credentials without claims, raw credential or reference", async () => {
    const account = await holder.account();
    expect((await get("/v1/vc", account)).json()).toEqual({ credentials: [] });
    const first = await received(account, true);
    holder.clock.advance(1);
    const second = await received(account);
    const response = await get("/v1/vc", account);
    expect(response.statusCode).toBe(200);
    const { credentials } = response.json();
    expect(credentials).toEqual([
      {
        id: first.credential_id,
        vct: DIPLOMA_VCT,
        issuer_did: issuer.issuerDid(),
        holder_did: first.identity.did,
        issued_at: expect.stringMatching(ISO),
        expires_at: expect.stringMatching(ISO),
        created_at: expect.stringMatching(ISO),
        status: "active",
        issuer_credential_id: null,
        issuer_offer_id: null,
        credential_status: "no_status",
      },
      expect.objectContaining({ id: second.credential_id, holder_did: second.identity.did }),
    ]);
    for (const item of credentials)
      expect(Object.keys(item).sort()).toEqual([
        "created_at",
        "credential_status",
        "expires_at",
        "holder_did",
        "id",
        "issued_at",
        "issuer_credential_id",
        "issuer_did",
        "issuer_offer_id",
        "status",
        "vct",
      ]);
  });

  it("GET /v1/vc/:id: the full credential with decoded claims, raw SD-JWT and (notarized only) reference", async () => {
    const account = await holder.account();
    const notarized = await received(account, true);
    const plain = await received(account, false);
    const detail = await get(`/v1/vc/${notarized.credential_id}`, account);
    expect(detail.statusCode).toBe(200);
    expect(detail.headers["cache-control"]).toBe("no-store");
    expect(detail.json()).toEqual({
      id: notarized.credential_id,
      vct: DIPLOMA_VCT,
      issuer_did: issuer.issuerDid(),
      holder_did: notarized.identity.did,
      issued_at: expect.stringMatching(ISO),
      expires_at: expect.stringMatching(ISO),
      created_at: expect.stringMatching(ISO),
      status: "active",
      issuer_credential_id: null,
      issuer_offer_id: null,
      credential_status: "no_status",
      claims: diplomaClaims,
      raw_credential: notarized.raw_credential,
      reference: {
        block_chain: "LEDGER",
        object_id: expect.any(String),
        state: "pending",
        issuer_salt: expect.stringMatching(/^[0-9a-f]{64}$/),
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    const plainDetail = (await get(`/v1/vc/${plain.credential_id}`, account)).json();
    expect(plainDetail).not.toHaveProperty("reference");
    expect(plainDetail.claims).toEqual(diplomaClaims);
    // An upper-case UUID names the same credential.
    expect((await get(`/v1/vc/${plain.credential_id.toUpperCase()}`, account)).statusCode).toBe(200);
  });

  it("400 for an id that is not a UUID; 404 for an unknown one", async () => {
    const account = await holder.account();
    const malformed = await get("/v1/vc/not-a-uuid", account);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({
      error: "invalid_request",
      message: expect.stringContaining("id must be a UUID"),
      errors: [{ field: "id", message: "must be a UUID" }],
    });
    expect((await del("/v1/vc/not-a-uuid", account)).statusCode).toBe(400);
    const unknown = await get(`/v1/vc/${randomUUID()}`, account);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: "not_found", message: "Credential not found" });
  });

  it("DELETE /v1/vc/:id: 204, gone from the listing and the detail, the sealed raw credential is kept", async () => {
    const account = await holder.account();
    const { credential_id: id } = await received(account);
    const deleted = await del(`/v1/vc/${id}`, account);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe("");
    expect((await get("/v1/vc", account)).json().credentials).toEqual([]);
    expect((await get(`/v1/vc/${id}`, account)).statusCode).toBe(404);
    expect((await del(`/v1/vc/${id}`, account)).statusCode).toBe(404);
    const row = await holder.database.pool.query(
      `SELECT deleted_at, sealed_content FROM ${holder.database.schema}.credentials WHERE id = $1`,
      [id],
    );
    expect(row.rows[0].deleted_at).toBeInstanceOf(Date);
    expect(row.rows[0].sealed_content).toMatch(/^v1\./);
  });

  it("another holder's credential is 404 (never 403) for detail and delete, and stays untouched; listings are separate", async () => {
    const [owner, intruder] = [await holder.account(), await holder.account()];
    const { credential_id: id } = await received(owner);
    expect((await get(`/v1/vc/${id}`, intruder)).statusCode).toBe(404);
    expect((await del(`/v1/vc/${id}`, intruder)).statusCode).toBe(404);
    expect((await get("/v1/vc", intruder)).json().credentials).toEqual([]);
    expect((await get(`/v1/vc/${id}`, owner)).statusCode).toBe(200);
  });

  it("credential contents are sealed at rest: no claim value or raw SD-JWT in the table", async () => {
    const account = await holder.account();
    const { credential_id: id, raw_credential: raw } = await received(account);
    const row = await holder.database.pool.query(
      `SELECT row_to_json(c)::text AS row FROM ${holder.database.schema}.credentials c WHERE id = $1`,
      [id],
    );
    const text = row.rows[0].row as string;
    expect(text).not.toContain("Lovelace");
    expect(text).not.toContain(raw.split("~")[0]);
  });
});
