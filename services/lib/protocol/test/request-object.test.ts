import { compactVerify, decodeProtectedHeader, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import {
  createRequestNonce,
  didKeyFromPublicJwk,
  ed25519PublicJwk,
  generateEd25519Jwk,
  REQUEST_OBJECT_TYP,
  resolveVerifierClientId,
  SELF_ISSUED_AUDIENCE,
  signRequestObject,
} from "../src/index.js";

describe("resolveVerifierClientId", () => {
  it("prefixes DIDs with decentralized_identifier: and derives the kid", () => {
    const didKey = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp";
    expect(resolveVerifierClientId(didKey)).toEqual({
      clientId: `decentralized_identifier:${didKey}`,
      issuer: didKey,
      did: didKey,
      kid: `${didKey}#z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp`,
    });
    expect(resolveVerifierClientId("did:ledger:abc")).toMatchObject({
      clientId: "decentralized_identifier:did:ledger:abc",
      kid: "did:ledger:abc#key-1",
    });
    expect(resolveVerifierClientId("did:ledger:abc#key-7")).toMatchObject({
      clientId: "decentralized_identifier:did:ledger:abc",
      kid: "did:ledger:abc#key-7",
    });
    expect(resolveVerifierClientId("decentralized_identifier:did:ledger:abc").clientId).toBe(
      "decentralized_identifier:did:ledger:abc",
    );
  });

  it("keeps URLs and other prefixes exactly as given, without kid", () => {
    expect(resolveVerifierClientId("https://verifier.example/rp")).toEqual({
      clientId: "https://verifier.example/rp",
      issuer: "https://verifier.example/rp",
    });
    expect(resolveVerifierClientId("x509_hash:abc")).toEqual({ clientId: "x509_hash:abc", issuer: "x509_hash:abc" });
  });
});

describe("signRequestObject", () => {
  it("signs with EdDSA and typ oauth-authz-req+jwt", async () => {
    const key = generateEd25519Jwk();
    const did = didKeyFromPublicJwk(key);
    const { clientId, issuer, kid } = resolveVerifierClientId(did);
    const now = Math.floor(Date.now() / 1000);
    const nonce = createRequestNonce();
    expect(nonce).toHaveLength(43);
    const jws = await signRequestObject(
      {
        iss: issuer,
        aud: SELF_ISSUED_AUDIENCE,
        client_id: clientId,
        response_type: "vp_token",
        response_mode: "direct_post",
        response_uri: "https://verifier.example/v1/verifier/presentation",
        nonce,
        state: createRequestNonce(),
        dcql_query: { credentials: [] },
        client_metadata: {},
        iat: now,
        exp: now + 300,
      },
      key,
      { kid },
    );
    expect(decodeProtectedHeader(jws)).toEqual({ alg: "EdDSA", typ: REQUEST_OBJECT_TYP, kid });
    const { payload } = await compactVerify(jws, await importJWK(ed25519PublicJwk(key), "EdDSA"));
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({ client_id: clientId, nonce, exp: now + 300 });
  });
});
