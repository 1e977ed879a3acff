import { compactVerify, importJWK } from "jose";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issuerKeyContext } from "../src/domain/issuer-keys.js";
import { privateKeyContext } from "../src/domain/offer.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import {
  createOffer,
  didIssuer,
  diplomaRequest,
  ed25519Key,
  type HolderKey,
  p256Key,
  postCredential,
  redeemedOffer,
  thumbprintOf,
} from "./support/wallet.js";

/**
 * DID-path issuer keys (issue 28, item 4): an offer names the tenant's key by its thumbprint; the
 * key is sealed once per tenant and key and imported once per process; offers made before keep
 * signing with the key sealed into them.
 */
describe("DID-path issuer keys, stored once per tenant and key", () => {
  let issuer: TestIssuer;
  const holder = p256Key();

  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  const table = (name: string) => sql.table(`${issuer.database.schema}.${name}`);
  const offerRow = async (offerId: string) =>
    (
      await sql<{ issuer_key_sealed: string | null; issuer_key_thumbprint: string | null }>`
        SELECT issuer_key_sealed, issuer_key_thumbprint FROM ${table("offers")} WHERE id = ${offerId}`.execute(
        issuer.database.db,
      )
    ).rows[0]!;
  const keyRows = async (tenant: string) =>
    (
      await sql<{ id: string; sealed_private_key: string }>`
        SELECT id, sealed_private_key FROM ${table("issuer_private_keys")} WHERE tenant = ${tenant}`.execute(
        issuer.database.db,
      )
    ).rows;

  /** A credential of an offer signed with `issuerKey`, checked with that key's public half (jose). */
  const issueAndVerify = async (offerId: string, issuerKey: HolderKey) => {
    const response = await postCredential(issuer, {
      token: await issuer.accessToken({ offerId }),
      body: await diplomaRequest(issuer, [holder]),
    });
    expect(response.statusCode).toBe(200);
    const credential = response.json().credentials[0].credential as string;
    const publicKey = await importJWK({ ...issuerKey.publicJwk }, "EdDSA");
    await expect(compactVerify(credential.split("~")[0]!, publicKey)).resolves.toBeTruthy();
  };

  it("an offer names the key by thumbprint; one sealed row per tenant and key, opened only with its context", async () => {
    const issuerKey = ed25519Key();
    const first = await redeemedOffer(issuer, didIssuer(issuerKey));
    const second = await redeemedOffer(issuer, didIssuer(issuerKey));
    const thumbprint = await thumbprintOf(issuerKey);
    for (const { offerId } of [first, second]) {
      expect(await offerRow(offerId)).toEqual({ issuer_key_sealed: null, issuer_key_thumbprint: thumbprint });
    }
    const rows = (await keyRows("acme")).filter((row) => row.id === `acme:${thumbprint}`);
    expect(rows).toHaveLength(1);
    const sealed = rows[0]!.sealed_private_key;
    expect(sealed).toMatch(/^v1\.test1\./);
    expect(sealed).not.toContain(issuerKey.privateJwk.d as string);
    const opened = JSON.parse(
      new TextDecoder().decode(issuer.deps.sealer.open(sealed, issuerKeyContext(`acme:${thumbprint}`))),
    );
    expect(opened.d).toBe(issuerKey.privateJwk.d);
    expect(() => issuer.deps.sealer.open(sealed, issuerKeyContext(`other:${thumbprint}`))).toThrow();
    await issueAndVerify(first.offerId, issuerKey);
    await issueAndVerify(second.offerId, issuerKey);
  });

  it("signs each offer with its own key when the tenant changes keys (a key is named by its content)", async () => {
    const before = ed25519Key();
    const after = ed25519Key();
    const old = await redeemedOffer(issuer, didIssuer(before));
    await issueAndVerify(old.offerId, before);
    const rotated = await redeemedOffer(issuer, didIssuer(after));
    await issueAndVerify(rotated.offerId, after);
    await issueAndVerify((await redeemedOffer(issuer, didIssuer(before))).offerId, before);
  });

  it("keeps offers made before the key table working: they sign with the key sealed into them", async () => {
    const issuerKey = ed25519Key();
    const created = await createOffer(issuer, didIssuer(issuerKey));
    const offerId = created.json().offer_id as string;
    // As a row written before migration 0010: the private JWK sealed with the offer, no thumbprint
    // (rewritten before the redemption: a redeemed offer's row never changes, offer-memory.ts).
    const legacy = issuer.deps.sealer.seal(
      new TextEncoder().encode(JSON.stringify(issuerKey.privateJwk)),
      privateKeyContext(offerId),
    );
    await sql`UPDATE ${table("offers")} SET issuer_key_sealed = ${legacy}, issuer_key_thumbprint = NULL
      WHERE id = ${offerId}`.execute(issuer.database.db);
    await sql`DELETE FROM ${table("issuer_private_keys")} WHERE id = ${`acme:${await thumbprintOf(issuerKey)}`}`.execute(
      issuer.database.db,
    );
    const document = (await issuer.app.inject({ method: "GET", url: `/v1/offers/${offerId}` })).json();
    const code = document.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"];
    await issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code });
    await issueAndVerify(offerId, issuerKey);
  });

  it("refuses an offer row naming its key both ways, or none (the migration's check)", async () => {
    const { offerId } = await redeemedOffer(issuer, didIssuer(ed25519Key()));
    const update = (sealed: string | null, thumbprint: string | null) =>
      sql`UPDATE ${table("offers")} SET issuer_key_sealed = ${sealed}, issuer_key_thumbprint = ${thumbprint}
        WHERE id = ${offerId}`.execute(issuer.database.db);
    await expect(update("v1.x.y", "t")).rejects.toThrow(/offers_issuer_key_check/);
    await expect(update(null, null)).rejects.toThrow(/offers_issuer_key_check/);
  });
});
