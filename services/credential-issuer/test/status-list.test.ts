import { createHash, randomUUID } from "node:crypto";
import { STATUS_LIST_BITS } from "@attesto/protocol";
import { getListFromStatusListJWT } from "@sd-jwt/jwt-status-list";
import { decodeProtectedHeader, importJWK, importX509, jwtVerify } from "jose";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statusIndexDraws } from "../src/domain/status-index-draws.js";
import type { IssuerTables } from "../src/store/tables.js";
import { decodeCredential } from "./support/sd-jwt.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import {
  didIssuer,
  diplomaRequest,
  ed25519Key,
  type HolderKey,
  p256Key,
  postCredential,
  postCredentialWithDpop,
  redeemedOffer,
  thumbprintOf,
} from "./support/wallet.js";

const decoded = async (credential: string) => (await decodeCredential(credential)).jwt;
const STATUS_URI = /^https:\/\/issuer\.example\/status-lists\/acme\/[0-9a-f-]{36}$/;

describe("Token Status List (issuer side)", () => {
  let issuer: TestIssuer;
  const issuerKey = ed25519Key();
  const holder = p256Key();

  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  const body = (keys: HolderKey[] = [holder]) => diplomaRequest(issuer, keys);
  const issueDid = async (keys?: HolderKey[]) => {
    const { offerId } = await redeemedOffer(issuer, didIssuer(issuerKey));
    const response = await postCredential(issuer, {
      token: await issuer.accessToken({ offerId }),
      body: await body(keys),
    });
    expect(response.statusCode).toBe(200);
    return (response.json().credentials as Array<{ credential: string }>).map((c) => c.credential);
  };
  const fetchList = (uri: string, headers: Record<string, string> = {}) =>
    issuer.app.inject({ method: "GET", url: new URL(uri).pathname, headers });

  it("puts status.status_list {idx, uri} in every credential, never disclosable, one entry each", async () => {
    const credentials = await issueDid([holder, p256Key(), p256Key()]);
    const statuses = await Promise.all(credentials.map(async (c) => (await decoded(c)).payload.status));
    for (const status of statuses) {
      expect(status).toEqual({ status_list: { idx: expect.any(Number), uri: expect.stringMatching(STATUS_URI) } });
    }
    const entries = statuses.map((s) => JSON.stringify(s));
    expect(new Set(entries).size).toBe(3);
    for (const [index, credential] of credentials.entries()) {
      const digest = createHash("sha256").update(credential.split("~")[0]!).digest("hex");
      const record = await issuer.deps.credentials.findByIssuerJwtSha256(digest);
      const { idx, uri } = (statuses[index] as { status_list: { idx: number; uri: string } }).status_list;
      expect(record?.statusEntry).toEqual({ listId: uri.split("/").pop(), idx });
    }
  });

  it("serves the list as a statuslist+jwt signed with the credential's own key (DID path, kid)", async () => {
    const [credential] = await issueDid();
    const jwt = await decoded(credential!);
    const { idx, uri } = (jwt.payload.status as { status_list: { idx: number; uri: string } }).status_list;
    const response = await fetchList(uri);
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/statuslist+jwt");
    expect(response.headers["cache-control"]).toBe("public, max-age=10");
    expect(response.headers["access-control-allow-origin"]).toBe("*");
    const token = response.body;
    expect(decodeProtectedHeader(token)).toEqual({ alg: "EdDSA", typ: "statuslist+jwt", kid: jwt.header.kid });
    const key = await importJWK({ ...issuerKey.publicJwk }, "EdDSA");
    const { payload } = await jwtVerify(token, key, { typ: "statuslist+jwt", currentDate: issuer.clock.now });
    const iat = Math.floor(issuer.clock.now.getTime() / 1000);
    expect(payload).toEqual({
      sub: uri,
      iss: "https://issuer.example/acme",
      iat,
      exp: iat + 600,
      ttl: 10,
      status_list: { bits: STATUS_LIST_BITS, lst: expect.any(String) },
    });
    const list = getListFromStatusListJWT(token);
    expect(list.getStatus(idx)).toBe(0);
    // 2^17 entries by default: the list hides how many credentials it holds.
    expect(() => list.getStatus(2 ** 17 - 1)).not.toThrow();

    const etag = response.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await fetchList(uri, { "if-none-match": etag });
    expect(again.statusCode).toBe(304);
  });

  it("signs the X.509 path's lists with the tenant's custody key and its x5c chain", async () => {
    const dpopKey = p256Key();
    const { offerId } = await redeemedOffer(issuer);
    const token = await issuer.accessToken({ offerId, dpopRequired: true, jkt: await thumbprintOf(dpopKey) });
    const response = await postCredentialWithDpop(issuer, { token, key: dpopKey, body: await body() });
    expect(response.statusCode).toBe(200);
    const jwt = await decoded(response.json().credentials[0].credential);
    const { uri } = (jwt.payload.status as { status_list: { uri: string } }).status_list;
    expect(uri).toMatch(STATUS_URI);
    const listToken = (await fetchList(uri)).body;
    const header = decodeProtectedHeader(listToken);
    expect(header).toEqual({ alg: "ES256", typ: "statuslist+jwt", x5c: jwt.header.x5c });
    const leaf = `-----BEGIN CERTIFICATE-----\n${header.x5c![0]}\n-----END CERTIFICATE-----`;
    await expect(
      jwtVerify(listToken, await importX509(leaf, "ES256"), { currentDate: issuer.clock.now }),
    ).resolves.toBeDefined();
    // DID-path and X.509-path credentials never share a list: each list has one signing key.
    const [didCredential] = await issueDid();
    const didUri = ((await decoded(didCredential!)).payload.status as { status_list: { uri: string } }).status_list.uri;
    expect(didUri).not.toBe(uri);
  });

  it("answers 404 for unknown lists, malformed ids and another tenant's list", async () => {
    const [credential] = await issueDid();
    const { uri } = ((await decoded(credential!)).payload.status as { status_list: { uri: string } }).status_list;
    const listId = uri.split("/").pop()!;
    for (const path of [
      `/status-lists/acme/${randomUUID()}`,
      "/status-lists/acme/not-a-list",
      `/status-lists/verifier-co/${listId}`,
      `/status-lists/nobody/${listId}`,
    ]) {
      const response = await issuer.app.inject({ method: "GET", url: path });
      expect(response.statusCode, path).toBe(404);
    }
  });
});

describe("status list allocation", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });
  const allocate = (tenant: string, count: number) =>
    issuer.deps.statusLists.allocate(
      { tenant, signer: { key: "x509" }, count, size: 1024, bits: 2, now: issuer.clock.now },
      statusIndexDraws(),
    );

  it("hands out every index of a list exactly once, then opens a new list", async () => {
    const first = await allocate("acme", 1000);
    const second = await allocate("acme", 24);
    const all = [...first, ...second];
    expect(new Set(all.map((entry) => entry.listId)).size).toBe(1);
    expect(new Set(all.map((entry) => entry.idx)).size).toBe(1024);
    expect(all.every((entry) => entry.idx >= 0 && entry.idx < 1024)).toBe(true);
    const [next] = await allocate("acme", 1);
    expect(next!.listId).not.toBe(all[0]!.listId);
  });

  it("draws indexes at random, not in issuance order", async () => {
    const entries = await allocate("random-order", 64);
    const indexes = entries.map((entry) => entry.idx);
    expect(indexes).not.toEqual([...Array(64).keys()]);
    expect(Math.max(...indexes)).toBeGreaterThan(64);
  });

  it("never gives two concurrent allocations the same entry", async () => {
    const batches = await Promise.all(Array.from({ length: 8 }, () => allocate("concurrent", 10)));
    const entries = batches.flat().map((entry) => `${entry.listId}:${entry.idx}`);
    expect(new Set(entries).size).toBe(80);
  });

  it("keeps each tenant's lists to itself", async () => {
    const [acme] = await allocate("acme", 1);
    const [other] = await allocate("globex", 1);
    expect(acme!.listId).not.toBe(other!.listId);
    expect(await issuer.deps.statusLists.find("globex", acme!.listId)).toBeUndefined();
    expect(await issuer.deps.statusLists.findVersion("globex", acme!.listId)).toBeUndefined();
    expect((await issuer.deps.statusLists.find("acme", acme!.listId))?.tenant).toBe("acme");
  });

  it("claims entries without locking or rewriting the list's row (no hot row per issuance)", async () => {
    const [first] = await allocate("unlocked", 1);
    const db = issuer.database.db as Kysely<IssuerTables>;
    // xmin changes when the row is rewritten, xmax when it is locked (FOR UPDATE / FOR SHARE) or updated.
    const rowOf = () =>
      db
        .selectFrom("status_lists")
        .selectAll()
        .select([sql<string>`xmin::text`.as("xmin"), sql<string>`xmax::text`.as("xmax")])
        .where("id", "=", first!.listId)
        .executeTakeFirstOrThrow();
    const before = await rowOf();
    const entries = (await Promise.all(Array.from({ length: 4 }, () => allocate("unlocked", 5)))).flat();
    expect(entries.every((entry) => entry.listId === first!.listId)).toBe(true);
    expect(await rowOf()).toEqual(before);
  });

  it("keeps the first free draws, each modulo the list size, and picks among listed free indexes", async () => {
    const draws = statusIndexDraws((max) => max - 1);
    const values = draws.draws(1000);
    expect(values.every((value) => Number.isInteger(value) && value >= 0 && value < 2 ** 30)).toBe(true);
    expect(new Set(values).size).toBeGreaterThan(990);
    // All 30 bits drawn: about half the values have the top one set (none of 1000: a chance of 2^-1000).
    expect(values.some((value) => value >= 2 ** 29)).toBe(true);
    expect(draws.among([3, 9, 12], 2)).toEqual([12, 9]);
    expect(statusIndexDraws(() => 0).among([3, 9, 12], 5)).toEqual([3, 12, 9]);
  });
});
