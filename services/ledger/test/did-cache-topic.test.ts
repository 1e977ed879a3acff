import { ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import { type DatabaseInvalidations, startTestCacheInvalidations } from "@attesto/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestLedger, type TestLedger } from "./test-ledger.js";

/**
 * The ledger's DIDs notify the `ledger.dids` cache topic when a change commits (migration 0002), so
 * the services caching resolved DIDs (the credential issuer's ledger client) see a creation or a
 * deactivation at once. On PGlite notifications are not delivered: the listener says so.
 */
describe("DID changes notify the ledger.dids cache topic", () => {
  let ledger: TestLedger;
  let invalidations: DatabaseInvalidations;
  beforeAll(async () => {
    invalidations = await startTestCacheInvalidations();
    ledger = await createTestLedger();
  });
  afterAll(async () => {
    await ledger?.close();
    await invalidations?.close();
  });

  it("a created and a deactivated DID each notify before the next barrier resolves", async () => {
    expect(invalidations.state).toBe(process.env.DATABASE_URL ? "coherent" : "unsupported");
    let changes = 0;
    invalidations.subscribe("ledger.dids", () => {
      changes += 1;
    });
    const created = await ledger.dids.createDid({
      publicJwkJson: JSON.stringify(ed25519PublicJwk(generateEd25519Jwk())),
    });
    const coherent = await invalidations.barrier();
    expect(coherent).toBe(invalidations.state === "coherent");
    if (coherent) expect(changes).toBeGreaterThanOrEqual(1);
    const before = changes;
    await ledger.dids.deactivateDid({ did: created.did });
    if (await invalidations.barrier()) expect(changes).toBeGreaterThan(before);
  });
});
