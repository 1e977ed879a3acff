import { createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import { CompactSign, calculateJwkThumbprint, compactVerify, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import {
  decodeEd25519Seed,
  ed25519JwkFromSeed,
  ed25519PublicJwk,
  ed25519SeedMatches,
  generateEd25519Jwk,
  generatePrivateKey,
  jwkThumbprint,
  KeyFormatError,
  p256JwkFromPem,
  p256JwkFromRawD,
  p256PublicJwk,
} from "../src/index.js";

describe("Ed25519 keys", () => {
  it("round-trips a seed through a JWK that signs verifiably", async () => {
    const generated = generateEd25519Jwk();
    const jwk = ed25519JwkFromSeed(decodeEd25519Seed(generated.d));
    expect(jwk).toEqual(generated);
    const jws = await new CompactSign(new TextEncoder().encode("hi"))
      .setProtectedHeader({ alg: "EdDSA" })
      .sign(await importJWK(jwk, "EdDSA"));
    const { payload } = await compactVerify(jws, await importJWK(ed25519PublicJwk(jwk), "EdDSA"));
    expect(new TextDecoder().decode(payload)).toBe("hi");
  });

  it("rejects seeds of the wrong length or encoding", () => {
    expect(() => decodeEd25519Seed(Buffer.alloc(31).toString("base64url"))).toThrow(KeyFormatError);
    expect(() => decodeEd25519Seed("not base64url!")).toThrow("base64url");
    expect(() => decodeEd25519Seed(Buffer.alloc(64).toString("base64url"))).toThrow("32 bytes, got 64");
  });

  it("tells whether a seed matches a public key", () => {
    const a = generateEd25519Jwk();
    const b = generateEd25519Jwk();
    expect(ed25519SeedMatches(decodeEd25519Seed(a.d), ed25519PublicJwk(a))).toBe(true);
    expect(ed25519SeedMatches(decodeEd25519Seed(a.d), ed25519PublicJwk(b))).toBe(false);
  });
});

describe("P-256 keys", () => {
  it("reads PKCS#8 PEM and raw d to the same JWK", async () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const fromPem = p256JwkFromPem(pem);
    expect(p256JwkFromRawD(fromPem.d)).toEqual(fromPem);
    expect(await calculateJwkThumbprint(p256PublicJwk(fromPem))).toHaveLength(43);
  });

  it("rejects non-P-256 and garbage keys", () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    expect(() => p256JwkFromPem(privateKey.export({ format: "pem", type: "pkcs8" }).toString())).toThrow("not a P-256");
    expect(() => p256JwkFromPem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")).toThrow(
      KeyFormatError,
    );
    expect(() => p256JwkFromRawD("abc")).toThrow(KeyFormatError);
  });
});

describe("jwkThumbprint", () => {
  it("is jose's RFC 7638 SHA-256 thumbprint of Ed25519 and P-256 keys, extra members ignored", async () => {
    const ed = generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" });
    const p256 = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" });
    for (const jwk of [ed, p256, { ...ed, kid: "k1", use: "sig" }]) {
      expect(jwkThumbprint(jwk)).toBe(await calculateJwkThumbprint(jwk as never, "sha256"));
    }
  });

  it("refuses keys it cannot thumbprint", () => {
    expect(() => jwkThumbprint({ kty: "EC", crv: "P-256", x: "AAAA" })).toThrow(/incomplete EC key/);
    expect(() => jwkThumbprint({ kty: "RSA" })).toThrow(TypeError);
  });
});

describe("generatePrivateKey", () => {
  it("makes fresh Ed25519 and P-256 keys that export as JWKs and sign", () => {
    const ed = generatePrivateKey("ed25519");
    const p256 = generatePrivateKey("p256");
    expect(ed.asymmetricKeyType).toBe("ed25519");
    expect(p256.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    expect(ed.export({ format: "jwk" })).toMatchObject({ kty: "OKP", crv: "Ed25519" });
    expect(p256.export({ format: "jwk" })).toMatchObject({ kty: "EC", crv: "P-256" });
    expect(generatePrivateKey("ed25519").export({ format: "jwk" }).d).not.toBe(ed.export({ format: "jwk" }).d);
    const data = Buffer.from("attesto");
    expect(verify(null, data, createPublicKey(ed), sign(null, data, ed))).toBe(true);
    expect(verify("sha256", data, createPublicKey(p256), sign("sha256", data, p256))).toBe(true);
  });
});
