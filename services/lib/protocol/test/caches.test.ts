import "reflect-metadata";
import { createPrivateKey, randomBytes, sign, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { calculateJwkThumbprint, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import {
  cacheDidResolution,
  createPublicKeyCache,
  createSeedPublicKeyCache,
  createX5cChainCache,
  ed25519JwkFromSeed,
  generateEd25519Jwk,
  generateP256Jwk,
  type RequestObjectClaims,
  type SdJwtVerificationError,
  signRequestObject,
  validateX5cChain,
  verifyJwsSignature,
  verifyX5cChain,
  type X5cChainValidator,
} from "../src/index.js";

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

type Jwk = { kty: string; crv: string; x: string; y?: string; d: string };
const publicOf = ({ d: _d, ...rest }: Jwk) => rest;

function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A compact JWS over `payload` signed with a private JWK. */
function jws(jwk: Jwk, payload: object): string {
  const alg = jwk.kty === "OKP" ? "EdDSA" : "ES256";
  const input = `${Buffer.from(JSON.stringify({ alg })).toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  const key = createPrivateKey({ key: jwk as never, format: "jwk" });
  const signature =
    alg === "EdDSA"
      ? sign(null, Buffer.from(input), key)
      : sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" });
  return `${input}.${signature.toString("base64url")}`;
}

describe("public key cache", () => {
  it("imports a key once and hands the same key to the next caller", async () => {
    const cache = createPublicKeyCache();
    const jwk = publicOf(generateP256Jwk() as Jwk);
    const first = cache.importKey(jwk);
    expect(cache.importKey({ ...jwk, kid: "ignored" } as never)).toBe(first);
    expect(cache.size).toBe(1);
  });

  it("never answers a changed key with a cached one", async () => {
    const cache = createPublicKeyCache();
    const a = publicOf(generateP256Jwk() as Jwk);
    const b = publicOf(generateP256Jwk() as Jwk);
    const keyA = cache.importKey(a);
    expect(cache.importKey(b)).not.toBe(keyA);
    // Same x, another y: another key.
    const refusedOrOther = (() => {
      try {
        return cache.importKey({ ...a, y: b.y });
      } catch {
        return "refused";
      }
    })();
    expect(refusedOrOther).not.toBe(keyA);
    expect(await cache.thumbprint(a)).toBe(await calculateJwkThumbprint(a as JWK, "sha256"));
    expect(await cache.thumbprint(b)).toBe(await calculateJwkThumbprint(b as JWK, "sha256"));
  });

  it("verifies with the key it was given, whatever was cached before", async () => {
    const signer = generateEd25519Jwk() as Jwk;
    const stranger = generateEd25519Jwk() as Jwk;
    const token = jws(signer, { hello: "world" });
    expect(await verifyJwsSignature(token, publicOf(signer))).toBe(true);
    expect(await verifyJwsSignature(token, publicOf(stranger))).toBe(false);
    expect(await verifyJwsSignature(token, publicOf(signer))).toBe(true);
  });

  it("keeps at most `max` keys", async () => {
    const cache = createPublicKeyCache({ max: 2 });
    for (let i = 0; i < 5; i++) cache.importKey(publicOf(generateEd25519Jwk() as Jwk));
    expect(cache.size).toBe(2);
  });

  it("drops a key unused for longer than its TTL and imports it again", async () => {
    const clock = manualClock();
    const cache = createPublicKeyCache({ ttlMs: 1000, now: clock.now });
    const jwk = publicOf(generateEd25519Jwk() as Jwk);
    const first = cache.importKey(jwk);
    clock.advance(999);
    expect(cache.importKey(jwk)).toBe(first);
    clock.advance(1001);
    expect(cache.importKey(jwk)).not.toBe(first);
  });

  it("does not remember a key that fails to import", async () => {
    const cache = createPublicKeyCache();
    const bad = { kty: "OKP", crv: "Ed25519", x: "AAAA" };
    expect(() => cache.importKey(bad)).toThrow(/not a valid public key/);
    expect(() => cache.importKey(bad)).toThrow(/not a valid public key/);
    expect(cache.size).toBe(0);
    expect(() => cache.importKey({ kty: "RSA" })).toThrow(/unsupported or incomplete RSA key/);
    expect(() => cache.thumbprint({ kty: "EC", crv: "P-256", x: "AAAA" })).toThrow(/incomplete EC key/);
  });
});

describe("seed public key cache (Ed25519 seeds)", () => {
  it("derives each seed's public key once and never mixes seeds up", () => {
    const cache = createSeedPublicKeyCache();
    let derivations = 0;
    const derive = (seed: Uint8Array) => {
      derivations++;
      return Buffer.from(seed).toString("hex");
    };
    const [a, b] = [randomBytes(32), randomBytes(32)];
    expect(cache.publicKeyOf(a, derive)).toBe(a.toString("hex"));
    expect(cache.publicKeyOf(a, derive)).toBe(a.toString("hex"));
    expect(cache.publicKeyOf(b, derive)).toBe(b.toString("hex"));
    expect(derivations).toBe(2);
  });

  it("is bounded and expires", () => {
    const clock = manualClock();
    const cache = createSeedPublicKeyCache({ max: 3, ttlMs: 1000, now: clock.now });
    let derivations = 0;
    const derive = () => String(++derivations);
    for (let i = 0; i < 10; i++) cache.publicKeyOf(randomBytes(32), derive);
    expect(cache.size).toBe(3);
    const seed = randomBytes(32);
    const first = cache.publicKeyOf(seed, derive);
    clock.advance(1001);
    expect(cache.publicKeyOf(seed, derive)).not.toBe(first);
  });

  it("gives ed25519JwkFromSeed the real public key of every seed", () => {
    for (let i = 0; i < 3; i++) {
      const generated = generateEd25519Jwk();
      const seed = Buffer.from(generated.d, "base64url");
      expect(ed25519JwkFromSeed(seed)).toEqual({ kty: "OKP", crv: "Ed25519", x: generated.x, d: generated.d });
      expect(ed25519JwkFromSeed(seed).x).toBe(generated.x);
    }
  });
});

describe("x5c chain cache", () => {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const day = 24 * 3600 * 1000;
  type Issued = { cert: x509.X509Certificate; keys: webcrypto.CryptoKeyPair };

  async function certificate(name: string, issuer: Issued | undefined, isCa: boolean, notAfter: Date) {
    const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomBytes(8).toString("hex"),
      subject: `CN=${name}`,
      issuer: issuer ? issuer.cert.subject : `CN=${name}`,
      notBefore: new Date(Date.now() - day),
      notAfter,
      signingAlgorithm: alg,
      publicKey: keys.publicKey,
      signingKey: issuer ? issuer.keys.privateKey : keys.privateKey,
      extensions: [new x509.BasicConstraintsExtension(isCa, undefined, true)],
    });
    return { cert, keys };
  }
  const b64 = (cert: x509.X509Certificate) => Buffer.from(cert.rawData).toString("base64");

  async function pki() {
    const root = await certificate("Root", undefined, true, new Date(Date.now() + 365 * day));
    const intermediate = await certificate("Issuing CA", root, true, new Date(Date.now() + 90 * day));
    const leaf = await certificate("Tenant", intermediate, false, new Date(Date.now() + 30 * day));
    return { root, intermediate, leaf, chain: [b64(leaf.cert), b64(intermediate.cert)] };
  }

  /** The real validator, counted. */
  function counted() {
    const calls = { count: 0 };
    const validate: X5cChainValidator = (x5c, anchors, now) => {
      calls.count++;
      return validateX5cChain(x5c, anchors, now);
    };
    return { calls, validate };
  }

  it("validates a chain once and answers it from the cache while every certificate is valid", async () => {
    const { root, chain, leaf } = await pki();
    const cache = createX5cChainCache();
    const { calls, validate } = counted();
    const first = await cache.verify(chain, [root.cert], new Date(), validate);
    const again = await cache.verify(chain, [root.cert], new Date(Date.now() + 29 * day), validate);
    expect(calls.count).toBe(1);
    expect(again).toEqual(first);
    expect(first.leafSubject).toBe(leaf.cert.subject);
    // A caller editing its answer does not change the next caller's.
    again.authorityKeyIds.push("tampered");
    (again.leafPublicJwk as { x: string }).x = "tampered";
    expect(await cache.verify(chain, [root.cert], new Date(), validate)).toEqual(first);
  });

  it("validates again once the earliest certificate has expired, and then refuses the chain", async () => {
    const { root, chain } = await pki();
    const cache = createX5cChainCache();
    const { calls, validate } = counted();
    await cache.verify(chain, [root.cert], new Date(), validate);
    const reason = await cache
      .verify(chain, [root.cert], new Date(Date.now() + 31 * day), validate)
      .catch((error: SdJwtVerificationError) => error.code);
    expect(reason).toBe("certificate_expired");
    expect(calls.count).toBe(2);
  });

  it("never answers a changed chain or a changed anchor set from the cache", async () => {
    const first = await pki();
    const second = await pki();
    const cache = createX5cChainCache();
    const { calls, validate } = counted();
    await cache.verify(first.chain, [first.root.cert], new Date(), validate);
    const swappedLeaf = [b64(second.leaf.cert), first.chain[1]!];
    const reason = await cache
      .verify(swappedLeaf, [first.root.cert], new Date(), validate)
      .catch((error: SdJwtVerificationError) => error.code);
    expect(reason).toBe("certificate_chain_invalid");
    const untrusted = await cache
      .verify(first.chain, [second.root.cert], new Date(), validate)
      .catch((error: SdJwtVerificationError) => error.code);
    expect(untrusted).toBe("untrusted_certificate_chain");
    expect(calls.count).toBe(3);
  });

  it("keeps at most `max` chains", async () => {
    const cache = createX5cChainCache({ max: 2 });
    for (let i = 0; i < 3; i++) {
      const { root, chain } = await pki();
      await cache.verify(chain, [root.cert], new Date(), validateX5cChain);
    }
    expect(cache.size).toBe(2);
  });

  it("is what verifyX5cChain uses, and malformed input still fails precisely", async () => {
    const { root, chain } = await pki();
    await expect(verifyX5cChain(chain, [root.cert], new Date())).resolves.toMatchObject({ leafSubject: "CN=Tenant" });
    await expect(verifyX5cChain([1, 2], [root.cert], new Date())).rejects.toMatchObject({ code: "x5c_malformed" });
    await expect(verifyX5cChain("nope", [root.cert], new Date())).rejects.toMatchObject({ code: "x5c_malformed" });
  });
});

describe("DID resolution cache", () => {
  function ledger() {
    const documents = new Map<string, { document: { id: string; version: number } }>();
    const calls = { count: 0 };
    const failing = { on: false };
    const resolve = async (did: string) => {
      calls.count++;
      if (failing.on) throw new Error("ledger down");
      return documents.get(did);
    };
    return { documents, calls, failing, resolve };
  }

  it("reuses a found document until its TTL has passed, then sees the change", async () => {
    const clock = manualClock();
    const l = ledger();
    const resolve = cacheDidResolution(l.resolve, { ttlMs: 30_000, now: clock.now });
    l.documents.set("did:ledger:a", { document: { id: "did:ledger:a", version: 1 } });
    expect((await resolve("did:ledger:a"))?.document.version).toBe(1);
    l.documents.set("did:ledger:a", { document: { id: "did:ledger:a", version: 2 } });
    clock.advance(29_999);
    expect((await resolve("did:ledger:a"))?.document.version).toBe(1);
    clock.advance(2);
    expect((await resolve("did:ledger:a"))?.document.version).toBe(2);
    expect(l.calls.count).toBe(2);
  });

  it("never caches 'not found' or a failure, and answers each DID with its own document", async () => {
    const l = ledger();
    const resolve = cacheDidResolution(l.resolve);
    expect(await resolve("did:ledger:new")).toBeUndefined();
    l.documents.set("did:ledger:new", { document: { id: "did:ledger:new", version: 1 } });
    l.documents.set("did:ledger:other", { document: { id: "did:ledger:other", version: 7 } });
    expect((await resolve("did:ledger:new"))?.document.id).toBe("did:ledger:new");
    expect((await resolve("did:ledger:other"))?.document.id).toBe("did:ledger:other");
    l.failing.on = true;
    await expect(resolve("did:ledger:third")).rejects.toThrow("ledger down");
    l.failing.on = false;
    l.documents.set("did:ledger:third", { document: { id: "did:ledger:third", version: 1 } });
    expect((await resolve("did:ledger:third"))?.document.id).toBe("did:ledger:third");
  });

  it("shares one lookup between concurrent resolutions and stays bounded", async () => {
    const l = ledger();
    const resolve = cacheDidResolution(l.resolve, { max: 2 });
    for (const name of ["a", "b", "c"]) l.documents.set(`did:ledger:${name}`, { document: { id: name, version: 1 } });
    await Promise.all([resolve("did:ledger:a"), resolve("did:ledger:a"), resolve("did:ledger:a")]);
    expect(l.calls.count).toBe(1);
    await resolve("did:ledger:b");
    await resolve("did:ledger:c");
    expect(resolve.size).toBe(2);
  });
});

describe("request object signing keys (cached imports)", () => {
  const claims: RequestObjectClaims = {
    iss: "did:key:z",
    aud: "https://self-issued.me/v2",
    client_id: "decentralized_identifier:did:key:z",
    response_type: "vp_token",
    response_mode: "direct_post",
    response_uri: "https://verifier.example/v1/verifier/presentation",
    nonce: "n",
    state: "s",
    dcql_query: { credentials: [] },
    client_metadata: {},
    iat: 1,
    exp: 2,
  };

  it("signs every request object with the key it is given, never a previously cached one", async () => {
    const a = generateEd25519Jwk() as Jwk;
    const b = generateEd25519Jwk() as Jwk;
    for (const [signer, other] of [
      [a, b],
      [b, a],
      [a, b],
    ] as const) {
      const jwt = await signRequestObject(claims, signer as never);
      expect(await verifyJwsSignature(jwt, publicOf(signer))).toBe(true);
      expect(await verifyJwsSignature(jwt, publicOf(other))).toBe(false);
    }
  });
});
