import { randomUUID } from "node:crypto";
import { CompactSign, calculateJwkThumbprint, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import {
  computeDpopAth,
  createDpopNonces,
  createDpopProof,
  DPOP_JTI_NAMESPACE,
  DpopProofError,
  type DpopReplayStore,
  type VerifyDpopProofOptions,
  verifyDpopProof,
} from "../src/dpop/index.js";
import { generateEd25519Jwk } from "../src/keys/ed25519.js";
import { generateP256Jwk, p256PublicJwk } from "../src/keys/p256.js";

const TOKEN_URL = "https://as.example.com/v1/token";
const NOW = new Date("2026-11-20T10:00:00Z");
const NOW_SECONDS = NOW.getTime() / 1000;
const SECRET = "n".repeat(32);

/** An in-memory single-use store with the runtime ReplayGuard's contract; records every call. */
function memoryReplay(): DpopReplayStore & { calls: Array<{ namespace: string; value: string; expiresAt: Date }> } {
  const used = new Set<string>();
  const calls: Array<{ namespace: string; value: string; expiresAt: Date }> = [];
  return {
    calls,
    async consume(namespace, value, expiresAt) {
      calls.push({ namespace, value, expiresAt });
      const key = `${namespace}\u0000${value}`;
      if (used.has(key)) return false;
      used.add(key);
      return true;
    },
  };
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A proof with arbitrary header and payload, signed by `signingJwk` (the header's jwk may differ). */
async function rawProof(options: {
  header?: Record<string, unknown>;
  payload?: Record<string, unknown>;
  signingJwk?: JWK;
  alg?: string;
  omit?: string[];
}): Promise<{ proof: string; jwk: JWK }> {
  const jwk = options.signingJwk ?? (generateP256Jwk() as JWK);
  const alg = options.alg ?? (jwk.kty === "OKP" ? "EdDSA" : "ES256");
  const publicJwk = jwk.kty === "OKP" ? { kty: "OKP", crv: "Ed25519", x: jwk.x } : p256PublicJwk(jwk);
  const header: Record<string, unknown> = { typ: "dpop+jwt", alg, jwk: publicJwk, ...options.header };
  const payload: Record<string, unknown> = {
    jti: randomUUID(),
    htm: "POST",
    htu: TOKEN_URL,
    iat: NOW_SECONDS,
    ...options.payload,
  };
  for (const name of options.omit ?? []) {
    delete header[name];
    delete payload[name];
  }
  const proof = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader(header as { alg: string })
    .sign(jwk);
  return { proof, jwk };
}

async function verify(header: VerifyDpopProofOptions["header"], options: Partial<VerifyDpopProofOptions> = {}) {
  return verifyDpopProof({ header, method: "POST", url: TOKEN_URL, replay: memoryReplay(), now: NOW, ...options });
}

/** The DpopProofError `verify` throws, as `{ code, message }`. */
async function failure(header: VerifyDpopProofOptions["header"], options: Partial<VerifyDpopProofOptions> = {}) {
  const error = await verify(header, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DpopProofError);
  const { code, message, reason } = error as DpopProofError;
  return { code, message, reason };
}

const invalid = (message: string) => ({ code: "invalid_dpop_proof", message });

describe("verifyDpopProof: valid proofs", () => {
  it("accepts an ES256 proof and returns the key, its RFC 7638 thumbprint and the jti", async () => {
    const key = generateP256Jwk();
    const proof = await createDpopProof({ privateJwk: key, method: "POST", url: TOKEN_URL, jti: "jti-1", now: NOW });
    const verified = await verify(proof);
    expect(verified).toEqual({
      jkt: await calculateJwkThumbprint(p256PublicJwk(key)),
      jwk: p256PublicJwk(key),
      jti: "jti-1",
    });
  });

  it("accepts an EdDSA (Ed25519) proof", async () => {
    const key = generateEd25519Jwk();
    const proof = await createDpopProof({ privateJwk: key, method: "POST", url: TOKEN_URL, now: NOW });
    const verified = await verify(proof);
    expect(verified.jkt).toBe(await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: key.x }));
  });

  it("accepts a header given as a one-element array", async () => {
    const { proof } = await rawProof({});
    await expect(verify([proof])).resolves.toMatchObject({ jti: expect.any(String) });
  });

  it("records the jti as <jkt>:<jti> in the dpop-jti namespace for 300 s", async () => {
    const replay = memoryReplay();
    const { proof } = await rawProof({ payload: { jti: "abc" } });
    const { jkt } = await verify(proof, { replay });
    expect(replay.calls).toEqual([
      { namespace: DPOP_JTI_NAMESPACE, value: `${jkt}:abc`, expiresAt: new Date(NOW.getTime() + 300_000) },
    ]);
  });

  it("ignores unknown header and payload members", async () => {
    const { proof } = await rawProof({ header: { kid: "k1" }, payload: { extra: true, iss: "wallet" } });
    await expect(verify(proof)).resolves.toBeDefined();
  });
});

describe("verifyDpopProof: the header set", () => {
  it("refuses a missing proof", async () => {
    expect(await failure(undefined)).toMatchObject(invalid("DPoP proof is missing"));
    expect(await failure("")).toMatchObject(invalid("DPoP proof is missing"));
    expect(await failure([])).toMatchObject(invalid("DPoP proof is missing"));
  });

  it("refuses two DPoP headers, as an array or joined by a comma", async () => {
    const { proof } = await rawProof({});
    const two = invalid("Exactly one DPoP header is allowed");
    expect(await failure([proof, proof])).toMatchObject(two);
    expect(await failure(`${proof}, ${proof}`)).toMatchObject(two);
  });

  it("refuses a value that is not a compact JWS", async () => {
    expect(await failure("not-a-jwt")).toMatchObject(invalid("DPoP proof is not a compact JWS"));
    expect(await failure("a.b.c.d.e")).toMatchObject(invalid("DPoP proof is not a compact JWS"));
    expect(await failure("e30.e30.")).toMatchObject({ code: "invalid_dpop_proof" });
    expect(await failure("!!!.e30.sig")).toMatchObject(invalid("DPoP proof is not a compact JWS"));
  });
});

describe("verifyDpopProof: JOSE header", () => {
  it("refuses a wrong or missing typ", async () => {
    const typ = invalid('DPoP proof header typ must be "dpop+jwt"');
    expect(await failure((await rawProof({ header: { typ: "jwt" } })).proof)).toMatchObject(typ);
    expect(await failure((await rawProof({ omit: ["typ"] })).proof)).toMatchObject(typ);
    expect(await failure((await rawProof({ header: { typ: "DPOP+JWT" } })).proof)).toMatchObject(typ);
  });

  it("refuses alg none (an unsigned proof)", async () => {
    const header = encode({ typ: "dpop+jwt", alg: "none", jwk: p256PublicJwk(generateP256Jwk()) });
    const payload = encode({ jti: "x", htm: "POST", htu: TOKEN_URL, iat: NOW_SECONDS });
    expect(await failure(`${header}.${payload}.`)).toMatchObject(
      invalid("DPoP proof header alg must be one of ES256, EdDSA"),
    );
  });

  it("refuses a symmetric alg (HS256)", async () => {
    const secret = new TextEncoder().encode("s".repeat(32));
    const proof = await new CompactSign(
      new TextEncoder().encode(JSON.stringify({ jti: "x", htm: "POST", htu: TOKEN_URL, iat: NOW_SECONDS })),
    )
      .setProtectedHeader({ typ: "dpop+jwt", alg: "HS256", jwk: { kty: "oct" } })
      .sign(secret);
    expect(await failure(proof)).toMatchObject(invalid("DPoP proof header alg must be one of ES256, EdDSA"));
  });

  it("refuses other asymmetric algs (RS256, ES384)", async () => {
    const [, payload, signature] = (await rawProof({})).proof.split(".");
    for (const alg of ["RS256", "ES384"]) {
      const header = encode({ typ: "dpop+jwt", alg, jwk: p256PublicJwk(generateP256Jwk()) });
      expect(await failure(`${header}.${payload}.${signature}`), alg).toMatchObject(
        invalid("DPoP proof header alg must be one of ES256, EdDSA"),
      );
    }
  });

  it("refuses a proof without jwk", async () => {
    expect(await failure((await rawProof({ omit: ["jwk"] })).proof)).toMatchObject(
      invalid("DPoP proof header must carry the public key as jwk"),
    );
  });

  it("refuses a private jwk", async () => {
    const key = generateP256Jwk();
    expect(await failure((await rawProof({ signingJwk: key, header: { jwk: key } })).proof)).toMatchObject(
      invalid("DPoP proof jwk must be a public key (it contains private key material)"),
    );
  });

  it("refuses a jwk that does not fit the alg, or is no valid key", async () => {
    const ed = generateEd25519Jwk();
    expect(
      await failure((await rawProof({ header: { jwk: { kty: "OKP", crv: "Ed25519", x: ed.x } } })).proof),
    ).toMatchObject(invalid("DPoP proof jwk must be an EC P-256 key for alg ES256"));
    const notOnCurve = {
      kty: "EC",
      crv: "P-256",
      x: Buffer.alloc(32, 1).toString("base64url"),
      y: Buffer.alloc(32, 2).toString("base64url"),
    };
    expect(await failure((await rawProof({ header: { jwk: notOnCurve } })).proof)).toMatchObject(
      invalid("DPoP proof jwk is not a valid ES256 public key"),
    );
    expect(await failure((await rawProof({ header: { jwk: "key" } })).proof)).toMatchObject(
      invalid("DPoP proof header jwk must be a JSON Web Key object"),
    );
  });

  it("refuses a proof signed by another key than its jwk", async () => {
    const other = p256PublicJwk(generateP256Jwk());
    expect(await failure((await rawProof({ header: { jwk: other } })).proof)).toMatchObject(
      invalid("DPoP proof signature is invalid"),
    );
  });

  it("refuses a tampered payload", async () => {
    const { proof } = await rawProof({});
    const [header, , signature] = proof.split(".");
    const payload = encode({ jti: "x", htm: "POST", htu: TOKEN_URL, iat: NOW_SECONDS });
    expect(await failure(`${header}.${payload}.${signature}`)).toMatchObject(
      invalid("DPoP proof signature is invalid"),
    );
  });
});

describe("verifyDpopProof: claims", () => {
  it("requires jti, htm, htu and iat", async () => {
    expect(await failure((await rawProof({ omit: ["jti"] })).proof)).toMatchObject(
      invalid("DPoP proof jti is required and must be a string"),
    );
    expect(await failure((await rawProof({ payload: { jti: 7 } })).proof)).toMatchObject(
      invalid("DPoP proof jti is required and must be a string"),
    );
    expect(await failure((await rawProof({ payload: { jti: "" } })).proof)).toMatchObject(
      invalid("DPoP proof jti must not be empty"),
    );
    expect(await failure((await rawProof({ omit: ["htm"] })).proof)).toMatchObject(
      invalid("DPoP proof htm is required and must be a string"),
    );
    expect(await failure((await rawProof({ omit: ["htu"] })).proof)).toMatchObject(
      invalid("DPoP proof htu is required and must be a string"),
    );
    expect(await failure((await rawProof({ payload: { iat: String(NOW_SECONDS) } })).proof)).toMatchObject(
      invalid("DPoP proof iat is required and must be a number"),
    );
  });

  it("refuses a wrong htm", async () => {
    const wrong = invalid("DPoP proof htm does not match the request method POST");
    expect(await failure((await rawProof({ payload: { htm: "GET" } })).proof)).toMatchObject(wrong);
    expect(await failure((await rawProof({ payload: { htm: "post" } })).proof)).toMatchObject(wrong);
  });

  it("refuses a wrong htu: other path, host, scheme, port, or an added trailing slash", async () => {
    const wrong = invalid("DPoP proof htu does not match the request URL");
    for (const htu of [
      "https://as.example.com/v1/par",
      "https://other.example.com/v1/token",
      "http://as.example.com/v1/token",
      "https://as.example.com:8443/v1/token",
      "https://as.example.com/v1/token/",
      "/v1/token",
      "not a url",
    ]) {
      expect(await failure((await rawProof({ payload: { htu } })).proof), htu).toMatchObject(wrong);
    }
  });

  it("compares htu without query and fragment, case-insensitive scheme and host, default port normalised", async () => {
    for (const htu of [
      "https://as.example.com/v1/token?resource=x",
      "https://as.example.com/v1/token#frag",
      "HTTPS://AS.Example.COM/v1/token",
      "https://as.example.com:443/v1/token",
    ]) {
      await expect(verify((await rawProof({ payload: { htu } })).proof), htu).resolves.toBeDefined();
    }
    const { proof } = await rawProof({ payload: { htu: "http://localhost/v1/token" } });
    await expect(verify(proof, { url: "http://localhost:80/v1/token?x=1" })).resolves.toBeDefined();
  });

  it("keeps a non-empty trailing slash significant", async () => {
    const { proof } = await rawProof({ payload: { htu: "https://as.example.com/tenant/" } });
    await expect(verify(proof, { url: "https://as.example.com/tenant/" })).resolves.toBeDefined();
    expect(await failure(proof, { url: "https://as.example.com/tenant" })).toMatchObject({ reason: "htu" });
  });

  it("accepts iat up to 300 s old and 60 s ahead; refuses beyond", async () => {
    await expect(verify((await rawProof({ payload: { iat: NOW_SECONDS - 300 } })).proof)).resolves.toBeDefined();
    await expect(verify((await rawProof({ payload: { iat: NOW_SECONDS + 60 } })).proof)).resolves.toBeDefined();
    expect(await failure((await rawProof({ payload: { iat: NOW_SECONDS - 301 } })).proof)).toMatchObject(
      invalid("DPoP proof is too old (iat more than 300 s in the past)"),
    );
    expect(await failure((await rawProof({ payload: { iat: NOW_SECONDS + 61 } })).proof)).toMatchObject(
      invalid("DPoP proof iat is in the future (more than 60 s ahead)"),
    );
  });

  it("requires ath to match the access token when one is presented", async () => {
    const accessToken = "eyJ.access.token";
    expect(await failure((await rawProof({})).proof, { accessToken })).toMatchObject(
      invalid("DPoP proof ath is required with an access token"),
    );
    expect(
      await failure((await rawProof({ payload: { ath: computeDpopAth("other") } })).proof, { accessToken }),
    ).toMatchObject(invalid("DPoP proof ath does not match the access token"));
    const key = generateP256Jwk();
    const proof = await createDpopProof({ privateJwk: key, method: "POST", url: TOKEN_URL, accessToken, now: NOW });
    await expect(verify(proof, { accessToken })).resolves.toBeDefined();
  });

  it("computes ath as base64url(SHA-256(token)) (RFC 9449 example)", () => {
    expect(computeDpopAth("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")).toBe(
      "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo",
    );
  });

  it("requires the proof key to match the token's cnf.jkt", async () => {
    const { proof } = await rawProof({});
    const other = await calculateJwkThumbprint(p256PublicJwk(generateP256Jwk()));
    expect(await failure(proof, { expectedJkt: other })).toMatchObject(
      invalid("DPoP proof key does not match the key the access token is bound to"),
    );
    const { jkt } = await verify(proof);
    await expect(verify(proof, { expectedJkt: jkt })).resolves.toMatchObject({ jkt });
  });
});

describe("verifyDpopProof: server nonces", () => {
  const nonces = createDpopNonces({ secret: SECRET, now: () => NOW });

  it("asks for a nonce (use_dpop_nonce) when the proof carries none", async () => {
    expect(await failure((await rawProof({})).proof, { nonces })).toEqual({
      code: "use_dpop_nonce",
      reason: "nonce",
      message: "DPoP proof must carry the server-provided nonce",
    });
  });

  it("asks again for an invalid or expired nonce", async () => {
    const stale = { code: "use_dpop_nonce", message: "DPoP nonce is invalid or expired" };
    expect(await failure((await rawProof({ payload: { nonce: "made-up" } })).proof, { nonces })).toMatchObject(stale);
    const old = createDpopNonces({ secret: SECRET, now: () => new Date(NOW.getTime() - 301_000) }).issue();
    expect(await failure((await rawProof({ payload: { nonce: old } })).proof, { nonces })).toMatchObject(stale);
    const foreign = createDpopNonces({ secret: "o".repeat(32), now: () => NOW }).issue();
    expect(await failure((await rawProof({ payload: { nonce: foreign } })).proof, { nonces })).toMatchObject(stale);
  });

  it("accepts a valid nonce", async () => {
    await expect(
      verify((await rawProof({ payload: { nonce: nonces.issue() } })).proof, { nonces }),
    ).resolves.toBeDefined();
  });

  it("reports structure and claim problems as invalid_dpop_proof even without a nonce", async () => {
    expect(await failure((await rawProof({ payload: { iat: NOW_SECONDS - 600 } })).proof, { nonces })).toMatchObject({
      code: "invalid_dpop_proof",
    });
    expect(await failure((await rawProof({ payload: { htm: "GET" } })).proof, { nonces })).toMatchObject({
      code: "invalid_dpop_proof",
    });
  });

  it("refuses a bad signature as invalid_dpop_proof with or without a nonce (never asks to retry a forgery)", async () => {
    const otherKey = p256PublicJwk(generateP256Jwk());
    const withoutNonce = (await rawProof({ header: { jwk: otherKey } })).proof;
    expect(await failure(withoutNonce, { nonces })).toMatchObject({ code: "invalid_dpop_proof", reason: "signature" });
    const withNonce = (await rawProof({ header: { jwk: otherKey }, payload: { nonce: nonces.issue() } })).proof;
    expect(await failure(withNonce, { nonces })).toMatchObject({ code: "invalid_dpop_proof", reason: "signature" });
  });

  it("does not consume the jti of a proof refused for its nonce", async () => {
    const replay = memoryReplay();
    const { proof } = await rawProof({});
    await failure(proof, { nonces, replay });
    expect(replay.calls).toEqual([]);
  });
});

describe("verifyDpopProof: jti replay", () => {
  it("refuses a proof whose jti was already used with the same key", async () => {
    const replay = memoryReplay();
    const { proof } = await rawProof({});
    await verify(proof, { replay });
    expect(await failure(proof, { replay })).toMatchObject(invalid("DPoP proof jti has already been used"));
  });

  it("scopes jtis by key: another key may use the same jti", async () => {
    const replay = memoryReplay();
    await verify((await rawProof({ payload: { jti: "same" } })).proof, { replay });
    await expect(verify((await rawProof({ payload: { jti: "same" } })).proof, { replay })).resolves.toBeDefined();
  });

  it("remembers a jti until its proof could no longer pass the iat check", async () => {
    const replay = memoryReplay();
    await verify((await rawProof({ payload: { iat: NOW_SECONDS + 30 } })).proof, { replay });
    expect(replay.calls[0]?.expiresAt).toEqual(new Date((NOW_SECONDS + 30 + 300) * 1000));
  });
});

describe("createDpopProof", () => {
  it("drops query and fragment from htu and adds ath and nonce when given", async () => {
    const key = generateP256Jwk();
    const proof = await createDpopProof({
      privateJwk: key,
      method: "POST",
      url: "https://issuer.example.com/credential?x=1#y",
      accessToken: "at",
      nonce: "n1",
      jti: "j",
      now: NOW,
    });
    const [header, payload] = proof
      .split(".")
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part!, "base64url").toString()));
    expect(header).toEqual({ typ: "dpop+jwt", alg: "ES256", jwk: p256PublicJwk(key) });
    expect(payload).toEqual({
      jti: "j",
      htm: "POST",
      htu: "https://issuer.example.com/credential",
      iat: NOW_SECONDS,
      ath: computeDpopAth("at"),
      nonce: "n1",
    });
  });
});
