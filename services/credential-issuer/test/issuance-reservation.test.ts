import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CredentialRecord } from "../src/domain/credential-record.js";
import type { IssuanceReservationInput } from "../src/domain/ports.js";
import type { IssuerTables } from "../src/store/tables.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";

/** The c_nonce, allowance and credential-record writes of a credential request, in their one statement. */
describe("issuance reservation (one statement)", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  let nextIdx = 0;
  const recordFor = (offerId: string): CredentialRecord => ({
    id: randomUUID(),
    tenant: "acme",
    offerId,
    credentialConfigurationId: "diploma",
    vct: "https://example.test/diploma",
    issuerJwtSha256: randomUUID(),
    holderKeyThumbprint: "thumbprint",
    status: "active",
    issuedAt: issuer.clock.now,
    expiresAt: new Date(issuer.clock.now.getTime() + 60_000),
    statusEntry: { listId: randomUUID(), idx: nextIdx++ },
    notificationId: randomUUID(),
  });
  const inputFor = (offerId: string, nonce: string, count = 1, records = true): IssuanceReservationInput => ({
    nonces: [{ value: nonce, expiresAt: new Date(issuer.clock.now.getTime() + 60_000) }],
    allowance: { key: { offerId, credentialConfigurationId: "diploma" }, count, limit: 3 },
    ...(records ? { records: Array.from({ length: count }, () => recordFor(offerId)) } : {}),
    now: issuer.clock.now,
  });
  const reserve = (input: IssuanceReservationInput) => issuer.deps.issuanceReservations.reserve(input);
  const recordsOf = async (offerId: string) => {
    const db = issuer.database.db as Kysely<IssuerTables>;
    return (await db.selectFrom("credentials").select("id").where("offer_id", "=", offerId).execute()).length;
  };
  const issuedOf = async (offerId: string) => {
    const db = issuer.database.db as Kysely<IssuerTables>;
    const row = await db
      .selectFrom("issuance_allowances")
      .select("issued")
      .where("offer_id", "=", offerId)
      .executeTakeFirst();
    return row?.issued ?? 0;
  };

  it("spends the nonce, reserves the allowance and stores the credential records, in one go", async () => {
    const offerId = randomUUID();
    const input = inputFor(offerId, randomUUID(), 2);
    expect(await reserve(input)).toEqual({ outcome: "reserved" });
    expect(await issuedOf(offerId)).toBe(2);
    const stored = await issuer.deps.credentials.find("acme", input.records![0]!.id);
    expect(stored?.statusEntry).toEqual(input.records![0]!.statusEntry);
    expect(stored?.issuedAt).toEqual(input.records![0]!.issuedAt);
    expect(await recordsOf(offerId)).toBe(2);
  });

  it("without records (notarized credentials, recorded later): the nonce and the allowance only", async () => {
    const offerId = randomUUID();
    expect(await reserve(inputFor(offerId, randomUUID(), 1, false))).toEqual({ outcome: "reserved" });
    expect(await issuedOf(offerId)).toBe(1);
    expect(await recordsOf(offerId)).toBe(0);
  });

  it("a spent nonce reserves nothing and records nothing", async () => {
    const offerId = randomUUID();
    const nonce = randomUUID();
    expect(await reserve(inputFor(offerId, nonce))).toEqual({ outcome: "reserved" });
    expect(await reserve(inputFor(offerId, nonce))).toEqual({ outcome: "nonce_used" });
    expect(await issuedOf(offerId)).toBe(1);
    expect(await recordsOf(offerId)).toBe(1);
  });

  it("an exhausted allowance records nothing, and the nonce stays spent", async () => {
    const offerId = randomUUID();
    expect(await reserve(inputFor(offerId, randomUUID(), 3))).toEqual({ outcome: "reserved" });
    const nonce = randomUUID();
    expect(await reserve(inputFor(offerId, nonce))).toEqual({ outcome: "allowance_exceeded" });
    expect(await issuedOf(offerId)).toBe(3);
    expect(await recordsOf(offerId)).toBe(3);
    expect(await reserve(inputFor(randomUUID(), nonce))).toEqual({ outcome: "nonce_used" });
    expect(await reserve(inputFor(randomUUID(), randomUUID(), 4))).toEqual({ outcome: "allowance_exceeded" });
  });

  it("of concurrent requests with one nonce exactly one is recorded; the allowance holds under concurrency", async () => {
    const nonce = randomUUID();
    const offers = Array.from({ length: 8 }, () => randomUUID());
    const sameNonce = await Promise.all(offers.map((offerId) => reserve(inputFor(offerId, nonce))));
    expect(sameNonce.filter((r) => r.outcome === "reserved")).toHaveLength(1);
    expect(sameNonce.filter((r) => r.outcome === "nonce_used")).toHaveLength(7);
    expect((await Promise.all(offers.map(recordsOf))).reduce((a, b) => a + b, 0)).toBe(1);

    const offerId = randomUUID();
    const sameOffer = await Promise.all(Array.from({ length: 8 }, () => reserve(inputFor(offerId, randomUUID()))));
    expect(sameOffer.filter((r) => r.outcome === "reserved")).toHaveLength(3);
    expect(await issuedOf(offerId)).toBe(3);
    expect(await recordsOf(offerId)).toBe(3);
  });
});
