import { ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestLedger, type TestLedger } from "./test-ledger.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("GET /1.0/identifiers/:did", () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await createTestLedger();
  });
  afterAll(async () => {
    await ledger.close();
  });

  it("resolves a DID the way the DIF universal resolver does", async () => {
    const publicKeyJwk = ed25519PublicJwk(generateEd25519Jwk());
    const { did, keyId } = await ledger.dids.createDid({ publicJwkJson: JSON.stringify(publicKeyJwk) });
    const res = await ledger.app.inject({ method: "GET", url: `/1.0/identifiers/${did}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe(
      'application/ld+json;profile="https://w3id.org/did-resolution";charset=utf-8',
    );
    expect(res.json()).toEqual({
      didDocument: {
        "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
        id: did,
        verificationMethod: [{ id: keyId, type: "JsonWebKey2020", controller: did, publicKeyJwk }],
        authentication: [keyId],
        assertionMethod: [keyId],
      },
      didDocumentMetadata: { created: expect.stringMatching(ISO), updated: expect.stringMatching(ISO) },
      didResolutionMetadata: { contentType: "application/did+ld+json" },
    });
    const encoded = await ledger.app.inject({ method: "GET", url: `/1.0/identifiers/${encodeURIComponent(did)}` });
    expect(encoded.json().didDocument.id).toBe(did);
  });

  it("flags a deactivated DID in its metadata", async () => {
    const { did } = await ledger.dids.createDid({
      publicJwkJson: JSON.stringify(ed25519PublicJwk(generateEd25519Jwk())),
    });
    await ledger.dids.deactivateDid({ did });
    const res = await ledger.app.inject({ method: "GET", url: `/1.0/identifiers/${did}` });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.didDocumentMetadata).toEqual({
      created: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
      deactivated: true,
    });
    expect(Date.parse(body.didDocumentMetadata.updated)).toBeGreaterThanOrEqual(
      Date.parse(body.didDocumentMetadata.created),
    );
    expect(body.didDocument.id).toBe(did);
  });

  it("answers 404 for an unknown did:ledger DID", async () => {
    const res = await ledger.app.inject({ method: "GET", url: "/1.0/identifiers/did:ledger:2Bc7sXYKWRnqHd9AdEMZyn" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: "not_found", message: "DID not found" });
  });

  it("answers 400 for a DID that is not did:ledger or is malformed (414 when oversized)", async () => {
    const cases: Array<[string, string]> = [
      ["did:web:example.com", "did must be a did:ledger DID"],
      ["hello", "did must be a did:ledger DID"],
      ["did:ledger:0OIl", "did is not a valid did:ledger DID"],
    ];
    for (const [did, message] of cases) {
      const res = await ledger.app.inject({ method: "GET", url: `/1.0/identifiers/${encodeURIComponent(did)}` });
      expect(res.statusCode, did).toBe(400);
      expect(res.json(), did).toEqual({ error: "invalid_request", message });
    }
    const long = await ledger.app.inject({ method: "GET", url: `/1.0/identifiers/did:ledger:${"2".repeat(300)}` });
    expect(long.statusCode).toBe(414);
    expect(long.json().error).toBe("uri_too_long");
  });
});
