import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyContext } from "../src/domain/offer.js";
import { recordEarlierIssuerKeys } from "../src/domain/record-earlier-issuer-keys.js";
import { ISSUER_ID, startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import { createOffer, didKeyOf, ed25519Key, type HolderKey } from "./support/wallet.js";

const seedOf = (key: HolderKey) => key.privateJwk.d as string;
const METADATA_PATH = "/.well-known/jwt-vc-issuer/acme";

describe("JWT VC Issuer Metadata (GET /.well-known/jwt-vc-issuer/:tenant)", () => {
  let issuer: TestIssuer;
  const ledgerKey = ed25519Key();
  const ledgerDid = "did:ledger:MetadataIssuer1";
  const didKeyKey = ed25519Key();

  beforeAll(async () => {
    issuer = await startTestIssuer();
    issuer.doubles.ledger.addDid(ledgerDid, ledgerKey.publicJwk);
  });
  afterAll(async () => {
    await issuer.close();
  });

  /** The document as a verifier reads it (the clock does not move: nothing may be served stale). */
  const fetchMetadata = async (tenant = "acme", headers: Record<string, string> = {}) =>
    issuer.app.inject({ method: "GET", url: `/.well-known/jwt-vc-issuer/${tenant}`, headers });

  it("names the exact iss and no key before the tenant signed on the DID path", async () => {
    expect((await createOffer(issuer)).statusCode).toBe(201); // X.509 path: its key travels in x5c.
    const response = await fetchMetadata();
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(response.json()).toEqual({ issuer: ISSUER_ID, jwks: { keys: [] } });
  });

  it("lists every DID-path key with kid = the DID URL the credentials carry, and is cacheable", async () => {
    const byLedger = await createOffer(issuer, { issuer_did: ledgerDid, issuer_private_key: seedOf(ledgerKey) });
    const didKey = didKeyOf(didKeyKey);
    const byDidKey = await createOffer(issuer, { issuer_did: didKey, issuer_private_key: seedOf(didKeyKey) });
    expect([byLedger.statusCode, byDidKey.statusCode]).toEqual([201, 201]);

    const response = await fetchMetadata("ACME");
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      issuer: ISSUER_ID,
      jwks: {
        keys: [
          // First use, then kid: both offers were made at the same instant.
          { ...didKeyKey.publicJwk, kid: `${didKey}#${didKey.slice("did:key:".length)}`, alg: "EdDSA", use: "sig" },
          { ...ledgerKey.publicJwk, kid: `${ledgerDid}#key-1`, alg: "EdDSA", use: "sig" },
        ],
      },
    });
    expect(response.headers["cache-control"]).toBe("public, max-age=60");
    const etag = response.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);

    const revalidated = await issuer.app.inject({
      method: "GET",
      url: METADATA_PATH,
      headers: { "if-none-match": etag },
    });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.body).toBe("");
  });

  it("lists a new key from the tenant's first offer with it on, even right after a fetch", async () => {
    const before = (await fetchMetadata()).json() as { jwks: { keys: Array<{ kid: string }> } };
    const freshKey = ed25519Key();
    const freshDid = didKeyOf(freshKey);
    expect(before.jwks.keys.some((key) => key.kid.startsWith(freshDid))).toBe(false);
    const offer = await createOffer(issuer, { issuer_did: freshDid, issuer_private_key: seedOf(freshKey) });
    expect(offer.statusCode).toBe(201);
    const after = (await fetchMetadata()).json() as { jwks: { keys: Array<{ kid: string }> } };
    expect(after.jwks.keys.some((key) => key.kid.startsWith(freshDid))).toBe(true);
  });

  it("lists a key once however many offers use it, and never a private member", async () => {
    await createOffer(issuer, { issuer_did: ledgerDid, issuer_private_key: seedOf(ledgerKey) });
    const { keys } = (await fetchMetadata()).json().jwks as { keys: Array<Record<string, unknown>> };
    expect(keys.filter((key) => key.kid === `${ledgerDid}#key-1`)).toHaveLength(1);
    for (const key of keys) expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
  });

  it("drops a did:ledger key once its DID is deactivated or no longer holds it", async () => {
    const rotatingDid = "did:ledger:MetadataIssuer2";
    const oldKey = ed25519Key();
    issuer.doubles.ledger.addDid(rotatingDid, oldKey.publicJwk);
    await createOffer(issuer, { issuer_did: rotatingDid, issuer_private_key: seedOf(oldKey) });
    const kids = async () => ((await fetchMetadata()).json().jwks.keys as Array<{ kid: string }>).map((k) => k.kid);
    expect(await kids()).toContain(`${rotatingDid}#key-1`);

    issuer.doubles.ledger.addDid(rotatingDid, ed25519Key().publicJwk); // key-1 now holds another key
    expect(await kids()).not.toContain(`${rotatingDid}#key-1`);

    issuer.doubles.ledger.addDid(rotatingDid, oldKey.publicJwk, true); // deactivated
    expect(await kids()).not.toContain(`${rotatingDid}#key-1`);
    expect(await kids()).toContain(`${ledgerDid}#key-1`);
  });

  it("answers 503 while the ledger cannot confirm did:ledger keys (never a list without them)", async () => {
    issuer.doubles.ledger.available = false;
    try {
      const response = await fetchMetadata();
      expect(response.statusCode).toBe(503);
      expect(response.headers["cache-control"]).toBeUndefined();
    } finally {
      issuer.doubles.ledger.available = true;
    }
  });

  it("keeps tenants apart: another tenant's document lists none of acme's keys", async () => {
    issuer.doubles.trustRegistry.tenants.set("other-uni", {
      ...issuer.doubles.trustRegistry.tenants.get("acme")!,
      tenant: { ...issuer.doubles.trustRegistry.tenants.get("acme")!.tenant, tenant: "other-uni" },
    });
    const response = await fetchMetadata("other-uni");
    expect(response.json()).toEqual({ issuer: `${ISSUER_ID.replace(/acme$/, "other-uni")}`, jwks: { keys: [] } });
  });

  it("answers 404 for an unknown or malformed tenant", async () => {
    const unknown = await fetchMetadata("nobody");
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: "not_found", message: "Tenant not found" });
    expect((await fetchMetadata("bad%20tenant")).statusCode).toBe(404);
  });

  it("records at start-up the keys of offers made before keys were recorded", async () => {
    const earlierKey = ed25519Key();
    const earlierDid = didKeyOf(earlierKey);
    const created = await createOffer(issuer, { issuer_did: earlierDid, issuer_private_key: seedOf(earlierKey) });
    expect(created.statusCode).toBe(201);
    // As a database migrated from before issuer_signing_keys: the offer exists with its key sealed
    // into it (as before migration 0010), its key is not recorded.
    const offerId = created.json().offer_id as string;
    const sealed = issuer.deps.sealer.seal(
      new TextEncoder().encode(JSON.stringify(earlierKey.privateJwk)),
      privateKeyContext(offerId),
    );
    const offersTable = sql.table(`${issuer.database.schema}.offers`);
    await sql`UPDATE ${offersTable} SET issuer_key_sealed = ${sealed}, issuer_key_thumbprint = NULL
      WHERE id = ${offerId}`.execute(issuer.database.db);
    const keysTable = sql.table(`${issuer.database.schema}.issuer_signing_keys`);
    await sql`DELETE FROM ${keysTable} WHERE did = ${earlierDid}`.execute(issuer.database.db);
    const kids = async () => ((await fetchMetadata()).json().jwks.keys as Array<{ kid: string }>).map((k) => k.kid);
    const earlierKid = `${earlierDid}#${earlierDid.slice("did:key:".length)}`;
    expect(await kids()).not.toContain(earlierKid);

    expect(await recordEarlierIssuerKeys(issuer.deps)).toEqual({ recorded: 1, unreadable: 0 });
    expect(await kids()).toContain(earlierKid);
    expect(await recordEarlierIssuerKeys(issuer.deps)).toEqual({ recorded: 0, unreadable: 0 });
  });
});
