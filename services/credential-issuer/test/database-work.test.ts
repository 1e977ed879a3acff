import { recordStatements } from "@attesto/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import { createOffer, didIssuer, ed25519Key, fetchNonce, keyProof, p256Key, postCredential } from "./support/wallet.js";

/**
 * The issuer's database work per step of a pre-authorized issuance (DID path), counted at the pg
 * pool: every statement a step sends. These are the budget the hack/bench README's figures come
 * from; a step that needs one more statement should say why there.
 */
describe("database statements per issuance step", () => {
  let issuer: TestIssuer;
  let statements: ReturnType<typeof recordStatements>;
  beforeAll(async () => {
    issuer = await startTestIssuer();
    statements = recordStatements(issuer.database.pool);
  });
  afterAll(async () => {
    await issuer.close();
  });

  const issuerKey = ed25519Key();
  const countOf = async (step: () => Promise<unknown>) =>
    (await statements.during(step)).map((text) => text.replace(/"[a-z0-9_]+"\./g, "").slice(0, 40));

  const issuance = async () => {
    const steps: Record<string, string[]> = {};
    let offerId = "";
    steps.offer = await countOf(async () => {
      const created = await createOffer(issuer, didIssuer(issuerKey));
      expect(created.statusCode).toBe(201);
      offerId = created.json().offer_id;
    });
    let code = "";
    steps.offerDocument = await countOf(async () => {
      const document = (await issuer.app.inject({ method: "GET", url: `/v1/offers/${offerId}` })).json();
      code = document.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"];
    });
    steps.token = await countOf(() => issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code }));
    let nonce = "";
    steps.nonce = await countOf(async () => {
      nonce = await fetchNonce(issuer);
    });
    const token = await issuer.accessToken({ offerId });
    const proof = await keyProof({ key: p256Key(), nonce, now: issuer.clock.now });
    steps.credential = await countOf(async () => {
      const response = await postCredential(issuer, {
        token,
        body: { credential_configuration_id: "university-diploma", proofs: { jwt: [proof] } },
      });
      expect(response.statusCode).toBe(200);
    });
    return steps;
  };

  it("offer 2, offer document 1, token 1, nonce 0, credential 3 (once the signer has an open list)", async () => {
    await issuance();
    const steps = await issuance();
    const counts = Object.fromEntries(Object.entries(steps).map(([step, texts]) => [step, texts.length]));
    expect(counts, JSON.stringify(steps, null, 1)).toEqual({
      offer: 2,
      offerDocument: 1,
      token: 1,
      nonce: 0,
      credential: 3,
    });
    expect(
      (steps.credential ?? []).some((text) => /^begin/i.test(text)),
      "no explicit transaction",
    ).toBe(false);
  });
});
