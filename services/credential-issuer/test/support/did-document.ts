/** A did:ledger DID document as the ledger serves it: one JsonWebKey2020 key, `#key-1`. */
export function createDidDocumentFor(did: string, publicJwk: object) {
  const keyId = `${did}#key-1`;
  return {
    "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
    id: did,
    verificationMethod: [{ id: keyId, type: "JsonWebKey2020", controller: did, publicKeyJwk: publicJwk }],
    authentication: [keyId],
    assertionMethod: [keyId],
  };
}
