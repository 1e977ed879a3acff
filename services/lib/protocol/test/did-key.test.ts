import { describe, expect, it } from "vitest";
import {
  didKeyFromPublicJwk,
  ed25519PublicJwk,
  generateEd25519Jwk,
  generateP256Jwk,
  KeyFormatError,
  p256PublicJwk,
  publicJwkFromDidKey,
} from "../src/index.js";

describe("did:key", () => {
  it("decodes the W3C CCG test vector for Ed25519", () => {
    // did-method-key spec example (Ed25519 public key 0x2e6fcce3...)
    const did = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp";
    const jwk = publicJwkFromDidKey(did);
    expect(jwk).toMatchObject({ kty: "OKP", crv: "Ed25519" });
    expect(didKeyFromPublicJwk(jwk)).toBe(did);
  });

  it("round-trips Ed25519 and P-256 keys, with and without a fragment", () => {
    const ed = ed25519PublicJwk(generateEd25519Jwk());
    const edDid = didKeyFromPublicJwk(ed);
    expect(edDid).toMatch(/^did:key:z6Mk/);
    expect(publicJwkFromDidKey(`${edDid}#${edDid.slice(8)}`)).toEqual(ed);
    const p = p256PublicJwk(generateP256Jwk());
    const pDid = didKeyFromPublicJwk(p);
    expect(pDid).toMatch(/^did:key:zDn/);
    expect(publicJwkFromDidKey(pDid)).toEqual(p);
  });

  it("rejects malformed and unsupported did:key values", () => {
    expect(() => publicJwkFromDidKey("did:ledger:abc")).toThrow(KeyFormatError);
    expect(() => publicJwkFromDidKey("did:key:z0OIl")).toThrow("base58btc");
    expect(() =>
      publicJwkFromDidKey(
        "did:key:z2J9gaYxrKVpdoG9A4gRnmpnRCcxU6agDtFVVBVdn1JedouoZN7SzcyREXXzWgt3gGiwpoHq7K68X4m32D8HgzG8wv3sY5j7",
      ),
    ).toThrow(KeyFormatError);
  });
});
