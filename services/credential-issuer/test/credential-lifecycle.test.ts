import { createHash, randomUUID } from "node:crypto";
import { invalidFieldsBody } from "@attesto/runtime/testing";
import { getListFromStatusListJWT } from "@sd-jwt/jwt-status-list";
import { compactVerify, importJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEYS } from "./support/doubles.js";
import { decodeCredential } from "./support/sd-jwt.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import { didIssuer, diplomaRequest, ed25519Key, p256Key, postCredential, redeemedOffer } from "./support/wallet.js";

interface Issued {
  offerId: string;
  credentialId: string;
  idx: number;
  uri: string;
}

describe("issued credentials: admin API and status changes", () => {
  let issuer: TestIssuer;
  const issuerKey = ed25519Key();

  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  /** One DID-path credential, with its record id and status list entry. */
  async function issue(extra: Record<string, unknown> = {}): Promise<Issued> {
    const { offerId } = await redeemedOffer(issuer, didIssuer(issuerKey));
    const body = { ...(await diplomaRequest(issuer, [p256Key()])), ...extra };
    const response = await postCredential(issuer, { token: await issuer.accessToken({ offerId }), body });
    const credential = response.json().credentials[0].credential as string;
    const { idx, uri } = (
      (await decodeCredential(credential)).jwt.payload as { status: { status_list: { idx: number; uri: string } } }
    ).status.status_list;
    const digest = createHash("sha256").update(credential.split("~")[0]!).digest("hex");
    const record = await issuer.deps.credentials.findByIssuerJwtSha256(digest);
    // The credential response names the record and its offer, so a wallet can lead back to them.
    expect(response.json().credentials[0]).toMatchObject({ credential_id: record!.id, offer_id: offerId });
    return { offerId, credentialId: record!.id, idx, uri };
  }

  const patch = (id: string, payload: unknown, apiKey = API_KEYS.acme) =>
    issuer.app.inject({
      method: "PATCH",
      url: `/v1/credentials/${id}`,
      headers: { "x-api-key": apiKey },
      payload: payload as never,
    });
  const get = (id: string, apiKey = API_KEYS.acme) =>
    issuer.app.inject({ method: "GET", url: `/v1/credentials/${id}`, headers: { "x-api-key": apiKey } });
  const list = (query = "", apiKey = API_KEYS.acme) =>
    issuer.app.inject({ method: "GET", url: `/v1/credentials${query}`, headers: { "x-api-key": apiKey } });
  const statusInList = async (issued: Issued) => {
    const response = await issuer.app.inject({ method: "GET", url: new URL(issued.uri).pathname });
    return getListFromStatusListJWT(response.body).getStatus(issued.idx);
  };

  it("lists the tenant's credentials, newest first, filtered by offer and status, without claims", async () => {
    const first = await issue();
    issuer.clock.advance(1);
    const second = await issue();
    const all = await list();
    expect(all.statusCode).toBe(200);
    expect(all.headers["cache-control"]).toBe("no-store");
    const body = all.json();
    expect(body).toMatchObject({ offset: 0, limit: 50 });
    expect(body.credentials[0]).toEqual({
      id: second.credentialId,
      offer_id: second.offerId,
      vct: expect.any(String),
      status: "active",
      issued_at: expect.any(String),
      expires_at: expect.any(String),
      status_changed_at: null,
      notification: null,
    });
    const byOffer = (await list(`?offer_id=${first.offerId}`)).json();
    expect(byOffer.credentials.map((c: { id: string }) => c.id)).toEqual([first.credentialId]);
    expect(byOffer.total).toBe(1);
    const paged = (await list("?limit=1&offset=1")).json();
    expect(paged.credentials).toHaveLength(1);
    expect(paged.total).toBeGreaterThanOrEqual(2);
  });

  it("revokes: the list shows INVALID at once, history and webhook recorded, and revocation is final (409)", async () => {
    const issued = await issue();
    expect(await statusInList(issued)).toBe(0);
    issuer.clock.advance(5);
    const revoked = await patch(issued.credentialId, { status: "revoked" });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({
      id: issued.credentialId,
      status: "revoked",
      status_changed_at: issuer.clock.now.toISOString(),
    });
    expect(await statusInList(issued)).toBe(1);
    const again = await patch(issued.credentialId, { status: "active" });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: "conflict", message: "Credential is revoked; revocation is final" });
    expect((await patch(issued.credentialId, { status: "suspended" })).statusCode).toBe(409);
    expect(await statusInList(issued)).toBe(1);
    const history = await issuer.deps.credentials.statusHistory("acme", issued.credentialId);
    expect(history).toEqual([
      {
        id: expect.any(String),
        credentialId: issued.credentialId,
        tenant: "acme",
        from: "active",
        to: "revoked",
        actor: "account:11111111-1111-4111-8111-111111111111",
        changedAt: issuer.clock.now,
      },
    ]);
    const events = [...issuer.doubles.notary.credentialEvents.values()].filter(
      (e) => e.credentialId === issued.credentialId,
    );
    expect(events).toEqual([
      {
        tenant: "acme",
        type: "credential.status_changed",
        credentialId: issued.credentialId,
        offerId: issued.offerId,
        data: {
          status: "revoked",
          previous_status: "active",
          changed_at: issuer.clock.now.toISOString(),
          actor: "account:11111111-1111-4111-8111-111111111111",
        },
      },
    ]);
    expect((await list("?status=revoked")).json().credentials.map((c: { id: string }) => c.id)).toContain(
      issued.credentialId,
    );
  });

  it("suspends and reinstates, each change in the list and the history", async () => {
    const issued = await issue();
    expect((await patch(issued.credentialId, { status: "suspended" })).json().status).toBe("suspended");
    expect(await statusInList(issued)).toBe(2);
    issuer.clock.advance(1);
    expect((await patch(issued.credentialId, { status: "active" })).json().status).toBe("active");
    expect(await statusInList(issued)).toBe(0);
    const history = await issuer.deps.credentials.statusHistory("acme", issued.credentialId);
    expect(history.map((change) => [change.from, change.to])).toEqual([
      ["active", "suspended"],
      ["suspended", "active"],
    ]);
  });

  it("answers a failed webhook with 503 and sends it when the same request is repeated", async () => {
    const issued = await issue();
    issuer.doubles.notary.available = false;
    try {
      expect((await patch(issued.credentialId, { status: "suspended" })).statusCode).toBe(503);
    } finally {
      issuer.doubles.notary.available = true;
    }
    expect(await statusInList(issued)).toBe(2);
    const repeated = await patch(issued.credentialId, { status: "suspended" });
    expect(repeated.statusCode).toBe(200);
    const events = [...issuer.doubles.notary.credentialEvents.values()].filter(
      (e) => e.credentialId === issued.credentialId,
    );
    expect(events.map((e) => e.data.status)).toEqual(["suspended"]);
    expect(await issuer.deps.credentials.statusHistory("acme", issued.credentialId)).toHaveLength(1);
  });

  it("keeps tenants apart: another tenant's credential is 404, and so is an unknown one", async () => {
    const issued = await issue();
    const [foreign] = (await issuer.deps.credentials.list({ tenant: "acme", offset: 0, limit: 1 })).records;
    const globexId = randomUUID();
    await issuer.deps.credentials.insertMany([
      {
        ...foreign!,
        id: globexId,
        tenant: "globex",
        status: "active",
        issuerJwtSha256: "f".repeat(64),
        statusEntry: undefined,
      },
    ]);
    expect((await patch(globexId, { status: "revoked" })).statusCode).toBe(404);
    expect((await patch(randomUUID(), { status: "revoked" })).statusCode).toBe(404);
    expect((await list()).json().credentials.map((c: { id: string }) => c.id)).not.toContain(globexId);
    expect((await issuer.deps.credentials.list({ tenant: "globex", offset: 0, limit: 10 })).records[0]?.status).toBe(
      "active",
    );
    expect(await statusInList(issued)).toBe(0);
  });

  it("GET /v1/credentials/:id: the record with its reference (null unless notarized, pending until anchored)", async () => {
    const plain = await issue();
    const shown = await get(plain.credentialId);
    expect(shown.statusCode).toBe(200);
    expect(shown.headers["cache-control"]).toBe("no-store");
    expect(shown.json()).toMatchObject({ id: plain.credentialId, offer_id: plain.offerId, reference: null });

    const notarized = await issue({ is_on_chain: true });
    const enqueued = issuer.doubles.notary.enqueued.at(-1)!;
    expect(enqueued.credentialId).toBe(notarized.credentialId);
    expect((await get(notarized.credentialId)).json().reference).toEqual({
      chain: "ledger",
      object_id: enqueued.objectId,
      state: "pending",
      issuer_salt: expect.stringMatching(/^[0-9a-f]{64}$/),
      digest: enqueued.digest,
    });
    // The scheduler down: 503, not a reference that pretends to be pending.
    issuer.doubles.notary.available = false;
    try {
      expect((await get(notarized.credentialId)).statusCode).toBe(503);
    } finally {
      issuer.doubles.notary.available = true;
    }
    // Another tenant's credential is 404 to this tenant's key.
    const [record] = (await issuer.deps.credentials.list({ tenant: "acme", offset: 0, limit: 1 })).records;
    const foreignId = randomUUID();
    await issuer.deps.credentials.insertMany([
      { ...record!, id: foreignId, tenant: "globex", issuerJwtSha256: "e".repeat(64), statusEntry: undefined },
    ]);
    expect((await get(foreignId)).statusCode).toBe(404);
    expect((await get(randomUUID())).statusCode).toBe(404);
    expect((await get("not-a-uuid")).statusCode).toBe(400);
    expect((await get(plain.credentialId, "wrong")).statusCode).toBe(401);
    expect((await get(plain.credentialId, API_KEYS.verifierOnly)).statusCode).toBe(403);
  });

  it("requires an issuer API key", async () => {
    const { credentialId } = await issue();
    for (const response of [await list("", "wrong"), await patch(credentialId, { status: "revoked" }, "wrong")]) {
      expect(response.statusCode).toBe(401);
    }
    for (const response of [
      await list("", API_KEYS.verifierOnly),
      await patch(credentialId, { status: "revoked" }, API_KEYS.verifierOnly),
    ]) {
      expect(response.statusCode).toBe(403);
    }
    const noKey = await issuer.app.inject({ method: "GET", url: "/v1/credentials" });
    expect(noKey.statusCode).toBe(401);
  });

  it("refuses bad queries and bodies with 400", async () => {
    const { credentialId } = await issue();
    for (const query of [
      "?limit=0",
      "?limit=201",
      "?limit=x",
      "?offset=-1",
      "?status=deleted",
      "?offer_id=nope",
      "?page=2",
      "?limit=1.5",
    ]) {
      const response = await list(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error).toBe("invalid_request");
    }
    for (const payload of [{}, { status: "expired" }, { status: "revoked", reason: "x" }, [], null]) {
      expect((await patch(credentialId, payload)).statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await patch("not-a-uuid", { status: "revoked" })).statusCode).toBe(400);
  });

  it("names exactly what is wrong with a status change: one entry per failing field, in plain words", async () => {
    const { credentialId } = await issue();
    const answer = async (payload: unknown) => {
      const response = await patch(credentialId, payload as Record<string, unknown>);
      return { status: response.statusCode, body: response.json() };
    };
    // A status that does not exist: not "is required", not "the body is not an object".
    expect(await answer({ status: "deleted" })).toEqual({
      status: 400,
      body: invalidFieldsBody("status must be one of active, suspended, revoked"),
    });
    expect(await answer({})).toEqual({ status: 400, body: invalidFieldsBody("status is required") });
    expect(await answer([])).toEqual({ status: 400, body: invalidFieldsBody("body must be a JSON object") });
    expect(await answer({ status: "deleted", reason: "x" })).toEqual({
      status: 400,
      body: invalidFieldsBody("status must be one of active, suspended, revoked; body has unknown fields"),
    });
  });

  it("never serves a torn list: every token fetched during many concurrent changes is one consistent state", async () => {
    const WRITERS = 2;
    const CREDENTIALS_PER_WRITER = 3;
    const CHANGES_PER_WRITER = 14;
    const READERS = 6;
    const value = { active: 0, suspended: 2, revoked: 1 } as const;
    const entries = await Promise.all(Array.from({ length: WRITERS * CREDENTIALS_PER_WRITER }, () => issue()));
    // All in one list: every change rewrites a byte of the same row that the readers read.
    expect(new Set(entries.map((entry) => entry.uri)).size).toBe(1);
    const path = new URL(entries[0]!.uri).pathname;
    const publicKey = await importJWK(issuerKey.publicJwk as never, "EdDSA");
    /** The whole list of one served token, decoded by a third-party reader after its signature is checked. */
    const fetchList = async () => {
      const response = await issuer.app.inject({ method: "GET", url: path });
      expect(response.statusCode).toBe(200);
      await compactVerify(response.body, publicKey);
      return getListFromStatusListJWT(response.body).statusList;
    };
    // Entries of earlier tests in this list: they must stay as they are.
    const baseline = await fetchList();

    // Each writer changes its own credentials one request at a time; the two writers run at once.
    // prefixes[k] is the writer's credentials' values after its first k changes.
    const plans = Array.from({ length: WRITERS }, (_, w) => {
      const own = entries.slice(w * CREDENTIALS_PER_WRITER, (w + 1) * CREDENTIALS_PER_WRITER);
      const current = own.map(() => "active" as keyof typeof value);
      const changes: Array<{ entry: Issued; status: keyof typeof value }> = [];
      const prefixes = [current.map((status) => value[status])];
      for (let k = 0; k < CHANGES_PER_WRITER; k++) {
        const slot = k % own.length;
        const status = k === CHANGES_PER_WRITER - 1 ? "revoked" : current[slot] === "active" ? "suspended" : "active";
        current[slot] = status;
        changes.push({ entry: own[slot]!, status });
        prefixes.push(current.map((s) => value[s]));
      }
      return { own, changes, prefixes, started: 0, completed: 0 };
    });

    let writing = true;
    const observations: Array<{ lo: number[]; hi: number[]; list: number[] }> = [];
    const readers = Array.from({ length: READERS }, async () => {
      while (writing) {
        const lo = plans.map((plan) => plan.completed);
        const list = await fetchList();
        observations.push({ lo, hi: plans.map((plan) => plan.started), list });
      }
    });
    await Promise.all(
      plans.map(async (plan) => {
        for (const change of plan.changes) {
          plan.started += 1;
          const response = await patch(change.entry.credentialId, { status: change.status });
          expect(response.statusCode).toBe(200);
          plan.completed += 1;
        }
      }),
    );
    writing = false;
    await Promise.all(readers);

    // A consistent state: every entry outside the writers' credentials as before, and each writer's
    // credentials exactly as after k of its changes, where k lies between the changes it had
    // completed when the fetch started and those it had begun when the fetch ended.
    const owned = new Set(entries.map((entry) => entry.idx));
    const problems: string[] = [];
    for (const [n, { lo, hi, list }] of observations.entries()) {
      if (list.length !== baseline.length) problems.push(`fetch ${n}: ${list.length} entries`);
      for (let idx = 0; idx < list.length; idx++) {
        if (!owned.has(idx) && list[idx] !== baseline[idx]) problems.push(`fetch ${n}: entry ${idx} changed`);
      }
      for (const [w, plan] of plans.entries()) {
        const seen = plan.own.map((entry) => list[entry.idx]);
        const k = plan.prefixes.findIndex(
          (prefix, at) => at >= lo[w]! && at <= hi[w]! && prefix.every((v, i) => v === seen[i]),
        );
        if (k < 0) problems.push(`fetch ${n}: writer ${w} reads ${seen} outside changes ${lo[w]}..${hi[w]}`);
      }
    }
    expect(problems).toEqual([]);
    // The readers did see changes happen (not only the states before and after all of them).
    expect(observations.length).toBeGreaterThanOrEqual(READERS * 4);
    const distinct = new Set(observations.map(({ list }) => entries.map((entry) => list[entry.idx]).join()));
    expect(distinct.size).toBeGreaterThan(2);
    const final = await fetchList();
    for (const plan of plans) expect(plan.own.map((entry) => final[entry.idx])).toEqual(plan.prefixes.at(-1));
  });
});
