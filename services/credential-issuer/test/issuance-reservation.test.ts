import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IssuanceReservationInput } from "../src/domain/repositories.js";
import { statusIndexDraws } from "../src/domain/status-index-draws.js";
import type { IssuerTables } from "../src/store/tables.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";

/** The c_nonce, allowance and status-entry writes of a credential request, in their one statement. */
describe("issuance reservation (one statement)", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  const draws = statusIndexDraws();
  const inputFor = (offerId: string, nonce: string, count = 1): IssuanceReservationInput => ({
    nonces: [{ value: nonce, expiresAt: new Date(issuer.clock.now.getTime() + 60_000) }],
    allowance: { key: { offerId, credentialConfigurationId: "diploma" }, count, limit: 3 },
    statusEntries: { tenant: "acme", signer: { key: "x509" }, count },
    now: issuer.clock.now,
  });
  const reserve = (input: IssuanceReservationInput) => issuer.deps.issuanceReservations.reserve(input, draws);
  const entriesOf = async () => {
    const db = issuer.database.db as Kysely<IssuerTables>;
    return (await db.selectFrom("status_list_entries").select(["list_id", "idx"]).execute()).length;
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

  it("spends the nonce, reserves the allowance and claims the entries, in one go", async () => {
    // The first reservation of a signer opens no list: it claims nothing and the caller allocates.
    await issuer.deps.statusLists.allocate(
      { tenant: "acme", signer: { key: "x509" }, count: 1, size: 1024, bits: 2, now: issuer.clock.now },
      draws,
    );
    const offerId = randomUUID();
    const reservation = await reserve(inputFor(offerId, randomUUID(), 2));
    expect(reservation.outcome).toBe("reserved");
    const entries = reservation.outcome === "reserved" ? reservation.statusEntries : [];
    expect(entries).toHaveLength(2);
    expect(new Set(entries.map((entry) => entry.idx)).size).toBe(2);
    expect(await issuedOf(offerId)).toBe(2);
  });

  it("a spent nonce reserves nothing and claims nothing", async () => {
    const offerId = randomUUID();
    const nonce = randomUUID();
    expect((await reserve(inputFor(offerId, nonce))).outcome).toBe("reserved");
    const entries = await entriesOf();
    expect(await reserve(inputFor(offerId, nonce))).toEqual({ outcome: "nonce_used" });
    expect(await issuedOf(offerId)).toBe(1);
    expect(await entriesOf()).toBe(entries);
  });

  it("an exhausted allowance claims nothing, and the nonce stays spent", async () => {
    const offerId = randomUUID();
    expect((await reserve(inputFor(offerId, randomUUID(), 3))).outcome).toBe("reserved");
    const entries = await entriesOf();
    const nonce = randomUUID();
    expect(await reserve(inputFor(offerId, nonce))).toEqual({ outcome: "allowance_exceeded" });
    expect(await issuedOf(offerId)).toBe(3);
    expect(await entriesOf()).toBe(entries);
    expect(await reserve(inputFor(randomUUID(), nonce))).toEqual({ outcome: "nonce_used" });
    expect(await reserve(inputFor(randomUUID(), randomUUID(), 4))).toEqual({ outcome: "allowance_exceeded" });
  });

  it("of concurrent requests with one nonce exactly one is reserved; the allowance holds under concurrency", async () => {
    const nonce = randomUUID();
    const sameNonce = await Promise.all(Array.from({ length: 8 }, () => reserve(inputFor(randomUUID(), nonce))));
    expect(sameNonce.filter((r) => r.outcome === "reserved")).toHaveLength(1);
    expect(sameNonce.filter((r) => r.outcome === "nonce_used")).toHaveLength(7);

    const offerId = randomUUID();
    const sameOffer = await Promise.all(Array.from({ length: 8 }, () => reserve(inputFor(offerId, randomUUID()))));
    const reserved = sameOffer.flatMap((r) => (r.outcome === "reserved" ? r.statusEntries : []));
    expect(sameOffer.filter((r) => r.outcome === "reserved")).toHaveLength(3);
    expect(await issuedOf(offerId)).toBe(3);
    expect(new Set(reserved.map((entry) => `${entry.listId}:${entry.idx}`)).size).toBe(reserved.length);
  });
});
