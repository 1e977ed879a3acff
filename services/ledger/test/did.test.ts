import { ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestLedger, type TestLedger } from "./test-ledger.js";

const codeOf = (error: unknown) => ConnectError.from(error).code;
const messageOf = (error: unknown) => ConnectError.from(error).rawMessage;

describe("LedgerService DIDs", () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await createTestLedger();
  });
  afterAll(async () => {
    await ledger.close();
  });

  const newPublicJwk = () => ed25519PublicJwk(generateEd25519Jwk());

  it("creates a did:ledger DID whose document lists the key, and anchors it in the log", async () => {
    const jwk = newPublicJwk();
    const created = await ledger.dids.createDid({ publicJwkJson: JSON.stringify({ ...jwk, kid: "k", use: "sig" }) });
    expect(created.did).toMatch(/^did:ledger:[1-9A-HJ-NP-Za-km-z]{21,22}$/);
    expect(created.keyId).toBe(`${created.did}#key-1`);
    expect(JSON.parse(created.didDocumentJson)).toEqual({
      "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
      id: created.did,
      verificationMethod: [{ id: created.keyId, type: "JsonWebKey2020", controller: created.did, publicKeyJwk: jwk }],
      authentication: [created.keyId],
      assertionMethod: [created.keyId],
    });
    const [entry] = await ledger.dependencies.repositories.entries.list({ from: Number(created.sequence), limit: 1 });
    expect(entry).toMatchObject({
      sequence: Number(created.sequence),
      kind: "did.create",
      payload: { did: created.did, document: JSON.parse(created.didDocumentJson) },
    });
  });

  it("resolves a DID to the document it was created with", async () => {
    const created = await ledger.dids.createDid({ publicJwkJson: JSON.stringify(newPublicJwk()) });
    const resolved = await ledger.dids.resolveDid({ did: created.did });
    expect(JSON.parse(resolved.didDocumentJson)).toEqual(JSON.parse(created.didDocumentJson));
    expect(resolved.deactivated).toBe(false);
  });

  it("gives every DID its own id", async () => {
    const jwk = JSON.stringify(newPublicJwk());
    const dids = await Promise.all([1, 2, 3].map(() => ledger.dids.createDid({ publicJwkJson: jwk })));
    expect(new Set(dids.map((d) => d.did)).size).toBe(3);
  });

  it("deactivates a DID once: it stays resolvable, flagged, and repeating is a no-op", async () => {
    const created = await ledger.dids.createDid({ publicJwkJson: JSON.stringify(newPublicJwk()) });
    const sizeBefore = await ledger.dependencies.repositories.entries.size();
    await ledger.dids.deactivateDid({ did: created.did });
    await Promise.all([
      ledger.dids.deactivateDid({ did: created.did }),
      ledger.dids.deactivateDid({ did: created.did }),
    ]);
    expect(await ledger.dependencies.repositories.entries.size()).toBe(sizeBefore + 1);
    const [entry] = await ledger.dependencies.repositories.entries.list({ from: sizeBefore, limit: 1 });
    expect(entry).toMatchObject({ kind: "did.deactivate", payload: { did: created.did } });
    const resolved = await ledger.dids.resolveDid({ did: created.did });
    expect(resolved.deactivated).toBe(true);
    expect(JSON.parse(resolved.didDocumentJson).id).toBe(created.did);
  });

  it("answers NotFound for an unknown did:ledger DID, to resolve and to deactivate", async () => {
    const unknown = "did:ledger:2Bc7sXYKWRnqHd9AdEMZyn";
    for (const call of [ledger.dids.resolveDid({ did: unknown }), ledger.dids.deactivateDid({ did: unknown })]) {
      const error = await call.catch((e: unknown) => e);
      expect(codeOf(error)).toBe(Code.NotFound);
      expect(messageOf(error)).toBe("DID not found");
    }
  });

  it("answers InvalidArgument for a DID of another method or a malformed did:ledger id", async () => {
    const cases = [
      ["did:web:example.com", "did must be a did:ledger DID"],
      ["", "did must be a did:ledger DID"],
      ["did:ledger:", "did is not a valid did:ledger DID"],
      ["did:ledger:0OIl0OIl0OIl0OIl0OIl0O", "did is not a valid did:ledger DID"],
      ["did:ledger:2Bc7", "did is not a valid did:ledger DID"],
    ];
    for (const [did, message] of cases) {
      const error = await ledger.dids.resolveDid({ did }).catch((e: unknown) => e);
      expect(codeOf(error), did).toBe(Code.InvalidArgument);
      expect(messageOf(error), did).toBe(message);
    }
    const deactivate = await ledger.dids.deactivateDid({ did: "did:key:z6Mk" }).catch((e: unknown) => e);
    expect(codeOf(deactivate)).toBe(Code.InvalidArgument);
  });

  it("refuses a private key, other key types, malformed keys and non-JSON with InvalidArgument", async () => {
    const privateJwk = generateEd25519Jwk();
    const cases: Array<[string, string]> = [
      [JSON.stringify(privateJwk), "public_jwk_json must be a public key: it contains a private key (d)"],
      ["not json", "public_jwk_json is not valid JSON"],
      ["[1]", "public_jwk_json must be a JSON object (a JWK)"],
      ["null", "public_jwk_json must be a JSON object (a JWK)"],
      [
        JSON.stringify({ kty: "EC", crv: "P-256", x: "a", y: "b" }),
        "public_jwk_json: expected an Ed25519 public JWK (kty OKP, crv Ed25519, x)",
      ],
      [JSON.stringify({ kty: "OKP", crv: "Ed25519", x: "AAAA" }), "public_jwk_json: Ed25519 public key is malformed"],
      ["", "public_jwk_json is not valid JSON"],
    ];
    const sizeBefore = await ledger.dependencies.repositories.entries.size();
    for (const [publicJwkJson, message] of cases) {
      const error = await ledger.dids.createDid({ publicJwkJson }).catch((e: unknown) => e);
      expect(codeOf(error), publicJwkJson).toBe(Code.InvalidArgument);
      expect(messageOf(error), publicJwkJson).toBe(message);
      expect(messageOf(error)).not.toContain(privateJwk.d);
    }
    expect(await ledger.dependencies.repositories.entries.size()).toBe(sizeBefore);
  });
});
