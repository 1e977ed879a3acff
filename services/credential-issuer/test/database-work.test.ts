import { type DatabaseInvalidations, recordStatements, startTestCacheInvalidations } from "@attesto/store";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/domain/issuer-configuration.js";
import { createIssuerConfigurationStore } from "../src/store/issuer-configuration.store.js";
import type { IssuerTables } from "../src/store/tables.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import {
  createOffer,
  didIssuer,
  ed25519Key,
  fetchNonce,
  keyProof,
  p256Key,
  postCredential,
  redeemedOffer,
} from "./support/wallet.js";

/**
 * The issuer's database work per step of a pre-authorized issuance (DID path), counted at the pg
 * pool: every statement a step sends, and the trust registry calls it makes. These are the budget
 * the hack/bench README's figures come from; a step that needs one more statement should say why
 * there. The issuer runs with the process's cache invalidation listener, as a launched service does:
 * on PostgreSQL the issuer configuration, the tenant and the API key's answer come from coherent
 * caches (each read costs a barrier, one round trip (a bare Sync) on the listening connection shared by
 * concurrent reads, not a pool statement); on PGlite (no notifications) they read through.
 */
describe("database statements per issuance step", () => {
  let issuer: TestIssuer;
  let invalidations: DatabaseInvalidations;
  let statements: ReturnType<typeof recordStatements>;
  beforeAll(async () => {
    invalidations = await startTestCacheInvalidations();
    issuer = await startTestIssuer({}, { cacheInvalidations: invalidations });
    statements = recordStatements(issuer.database.pool);
  });
  afterAll(async () => {
    await issuer?.close();
    await invalidations?.close();
  });

  const issuerKey = ed25519Key();
  const askedOf: Record<string, number> = {};
  const countOf = async (step: () => Promise<unknown>, name = "") => {
    const before = issuer.doubles.trustRegistry.tenantCalls;
    // The purge of expired single-use records follows 1 % of their inserts at random
    // (store/replay-guard.ts): not the step's own work.
    const texts = (await statements.during(step))
      .filter((text) => !/used_values" where "expires_at" <=/.test(text))
      .map((text) => text.replace(/"[a-z0-9_]+"\./g, "").slice(0, 40));
    askedOf[name] = issuer.doubles.trustRegistry.tenantCalls - before;
    return texts;
  };

  const issuance = async () => {
    const steps: Record<string, string[]> = {};
    let offerId = "";
    steps.offer = await countOf(async () => {
      const created = await createOffer(issuer, didIssuer(issuerKey));
      expect(created.statusCode).toBe(201);
      offerId = created.json().offer_id;
    }, "offer");
    let code = "";
    steps.offerDocument = await countOf(async () => {
      const document = (await issuer.app.inject({ method: "GET", url: `/v1/offers/${offerId}` })).json();
      code = document.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"];
    }, "offerDocument");
    steps.token = await countOf(() => issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code }), "token");
    let nonce = "";
    steps.nonce = await countOf(async () => {
      nonce = await fetchNonce(issuer);
    }, "nonce");
    const token = await issuer.accessToken({ offerId });
    const proof = await keyProof({ key: p256Key(), nonce, now: issuer.clock.now });
    steps.credential = await countOf(async () => {
      const response = await postCredential(issuer, {
        token,
        body: { credential_configuration_id: "university-diploma", proofs: { jwt: [proof] } },
      });
      expect(response.statusCode).toBe(200);
    }, "credential");
    return steps;
  };

  it("offer 1, offer document 0, token 1, nonce 0, credential 1 statement (status entries claimed ahead; the offer as this process created and redeemed it), and no trust registry call once warm (coherent caches; PGlite reads through)", async () => {
    const first = await issuance();
    expect(first.offer?.at(-1), "the first offer with a key stores it").toMatch(
      /^with "offer" as \(insert into "offers"/,
    );
    const steps = await issuance();
    const counts = Object.fromEntries(Object.entries(steps).map(([step, texts]) => [step, texts.length]));
    const coherent = invalidations.state === "coherent";
    expect(invalidations.state).toBe(process.env.DATABASE_URL ? "coherent" : "unsupported");
    expect(counts, JSON.stringify(steps, null, 1)).toEqual({
      // The issuer configuration comes from its coherent cache: the offer's one statement is its insert.
      offer: coherent ? 1 : 2,
      // The offer as this process created it (offer-memory.ts): the document needs no read.
      offerDocument: 0,
      token: 1,
      nonce: 0,
      // The offer as the token step redeemed it (offer-memory.ts): c_nonce, allowance and record only.
      credential: 1,
    });
    // The tenant's key was stored with the first offer: the next offer with it is the offer's insert alone.
    expect(steps.offer?.at(-1), "no per-offer signing-key upsert").toMatch(/^insert into "offers"/);
    // The API key's answer and the tenant (active? which configurations?) come from coherent caches;
    // read through, an offer asks for both and every later step whether the tenant is still active.
    expect(askedOf).toEqual(
      coherent
        ? { offer: 0, offerDocument: 0, token: 0, nonce: 0, credential: 0 }
        : { offer: 2, offerDocument: 1, token: 1, nonce: 0, credential: 1 },
    );
    expect(
      (steps.credential ?? []).some((text) => /^begin/i.test(text)),
      "no explicit transaction",
    ).toBe(false);
  });

  it("a did:ledger issuer's offer takes one cache barrier: the DID's resolution trusts the API key check's", async () => {
    const key = ed25519Key();
    const did = "did:ledger:OneBarrierPerOffer";
    issuer.doubles.ledger.addDid(did, key.publicJwk);
    const offer = async () =>
      expect((await createOffer(issuer, { issuer_did: did, issuer_private_key: key.privateJwk.d })).statusCode).toBe(
        201,
      );
    await offer();
    const before = invalidations.roundTrips;
    await offer();
    // Without the request's scope the resolution sent a barrier of its own, after the API key's.
    expect(invalidations.roundTrips - before).toBe(invalidations.state === "coherent" ? 1 : 0);
  });

  it("a configuration written by another connection (another replica) is what the very next offer sees", async () => {
    await issuance();
    const otherReplica = createIssuerConfigurationStore(issuer.database.db);
    const declared = {
      tenant: "acme",
      issuerName: "ns/acme",
      credentialConfigurations: [{ id: "employee-badge", display: [] }],
    };
    await otherReplica.put({ ...declared, digest: digestOf(declared), updatedAt: new Date() });
    try {
      const refused = await createOffer(issuer, didIssuer(issuerKey));
      expect([refused.statusCode, JSON.stringify(refused.json())]).toEqual([
        400,
        expect.stringContaining("is not offered by this tenant's issuer"),
      ]);
    } finally {
      await otherReplica.delete("acme");
    }
    expect((await createOffer(issuer, didIssuer(issuerKey))).statusCode).toBe(201);
  });

  it("an offer another replica redeemed is read by the credential step, and refused there unless redeemed in the token's tenant", async () => {
    const db = issuer.database.db as Kysely<IssuerTables>;
    const credentialFor = async (offerId: string, tenant = "acme") => {
      const nonce = await fetchNonce(issuer);
      const proof = await keyProof({ key: p256Key(), nonce, now: issuer.clock.now });
      return postCredential(issuer, {
        token: await issuer.accessToken({ offerId, tenant }),
        body: { credential_configuration_id: "university-diploma", proofs: { jwt: [proof] } },
      });
    };
    const offerOf = async () => {
      const created = await createOffer(issuer, didIssuer(issuerKey));
      expect(created.statusCode).toBe(201);
      return created.json().offer_id as string;
    };

    // Redeemed through another replica (its UPDATE, not this process's): not remembered here.
    const elsewhere = await offerOf();
    await db
      .updateTable("offers")
      .set({ status: "redeemed", redeemed_at: issuer.clock.now })
      .where("id", "=", elsewhere)
      .execute();
    let answer: Awaited<ReturnType<typeof credentialFor>> | undefined;
    const texts = await statements.during(async () => {
      answer = await credentialFor(elsewhere);
    });
    expect(answer?.statusCode).toBe(200);
    expect(texts, "the offer read, then the reservation").toHaveLength(2);
    expect(texts[0]).toMatch(/^select \* from "[a-z0-9_]+"\."offers" where "id" = \$1/);

    // Never redeemed: refused, remembered or not; and a redeemed offer is refused to a token of another tenant.
    const unredeemed = await offerOf();
    expect((await credentialFor(unredeemed)).json().error_description).toBe("access token refers to no redeemed offer");
    const { offerId: redeemedHere } = await redeemedOffer(issuer, didIssuer(issuerKey));
    const foreign = await credentialFor(redeemedHere, "globex");
    expect([foreign.statusCode, foreign.json().error_description]).toEqual([
      401,
      "access token refers to no redeemed offer",
    ]);
    expect((await credentialFor(redeemedHere)).statusCode).toBe(200);
  });
});
