import { createPrivateKey, createPublicKey, type JsonWebKey, sign } from "node:crypto";
import { CompactSign, compactVerify, importJWK, type JWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createPublicKeyCache, generateEd25519Jwk, generateP256Jwk } from "../src/index.js";
import { type CompactJwsAlgorithm, signCompactJws, verifyCompactJws } from "../src/keys/compact-jws.js";

type Jwk = { kty: string; crv: string; x: string; y?: string; d: string };
const publicOf = ({ d: _d, ...rest }: Jwk) => rest;
const b64 = (value: string) => Buffer.from(value).toString("base64url");

function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const keys = {
  ES256: generateP256Jwk() as Jwk,
  EdDSA: generateEd25519Jwk() as Jwk,
} satisfies Record<CompactJwsAlgorithm, Jwk>;

/** A JWS with an arbitrary protected header and raw payload segment, signed by jose. */
async function joseSigned(alg: CompactJwsAlgorithm, header: Record<string, unknown>, payload: string) {
  const key = await importJWK(keys[alg] as JWK, alg);
  return new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg, ...header }).sign(key);
}

/** What jose's compactVerify answers: the payload text, or "rejected". */
async function joseAnswer(compact: string, alg: CompactJwsAlgorithm) {
  try {
    const key = await importJWK(publicOf(keys[alg]) as JWK, alg);
    const { payload } = await compactVerify(compact, key, { algorithms: [alg] });
    return new TextDecoder().decode(payload);
  } catch {
    return "rejected";
  }
}

function ownAnswer(compact: string, alg: CompactJwsAlgorithm) {
  try {
    const key = createPublicKey({ key: publicOf(keys[alg]) as JsonWebKey, format: "jwk" });
    return new TextDecoder().decode(verifyCompactJws(compact, key, alg).payload);
  } catch {
    return "rejected";
  }
}

describe("verifyCompactJws accepts exactly what jose's compactVerify accepts", () => {
  for (const alg of ["ES256", "EdDSA"] as const) {
    it(`${alg}: valid, tampered, malformed and crit/b64 variants`, async () => {
      const valid = await joseSigned(alg, { typ: "JWT" }, '{"hello":"world"}');
      const [h, p, s] = valid.split(".") as [string, string, string];
      const other = alg === "ES256" ? "EdDSA" : "ES256";
      const variants = [
        valid,
        `${h}.${b64('{"hello":"mars"}')}.${s}`,
        `${h}.${p}.${s.slice(0, -4)}AAAA`,
        `${h}.${p}`,
        `${valid}.extra`,
        `${h}.${p}.`,
        `${b64("[1,2]")}.${p}.${s}`,
        `${b64("not json")}.${p}.${s}`,
        `${h}.${p}.${s}==`,
        `${h}.${p}.${s}!`,
        `${h}.${p}===.${s}`,
        await joseSigned(other, { typ: "JWT" }, '{"a":1}'),
      ];
      // Hand-built headers (jose's CompactSign refuses some of them).
      const raw = async (header: Record<string, unknown>, payloadSegment = b64('{"a":1}')) => {
        const input = `${b64(JSON.stringify(header))}.${payloadSegment}`;
        const privateKey = createPrivateKey({ key: keys[alg] as JsonWebKey, format: "jwk" });
        const data = Buffer.from(input);
        const signature =
          alg === "EdDSA"
            ? sign(null, data, privateKey)
            : sign("sha256", data, { key: privateKey, dsaEncoding: "ieee-p1363" });
        return `${input}.${signature.toString("base64url")}`;
      };
      variants.push(
        await raw({ alg, crit: ["exp"], exp: 1 }),
        await raw({ alg, b64: false, crit: ["b64"] }, '{"unencoded":true}'),
        await raw({ alg, b64: true, crit: ["b64"] }, b64('{"encoded":true}')),
        await raw({ alg, b64: false }, b64('{"b64 without crit":true}')),
        await raw({ alg, crit: [] }),
        await raw({ alg, crit: ["b64"] }),
        await raw({ alg, crit: "b64", b64: true }),
        await raw({ alg, crit: ["b64"], b64: "no" }),
        await raw({ alg: "" }),
        await raw({ alg: "none" }),
      );
      for (const variant of variants) {
        expect(ownAnswer(variant, alg), variant).toBe(await joseAnswer(variant, alg));
      }
      expect(ownAnswer(valid, alg)).toBe('{"hello":"world"}');
    });
  }

  it("rejects a signature made by another key of the same type", async () => {
    const stranger = generateEd25519Jwk() as Jwk;
    const compact = await new CompactSign(new TextEncoder().encode("{}"))
      .setProtectedHeader({ alg: "EdDSA" })
      .sign(await importJWK(stranger as JWK, "EdDSA"));
    expect(ownAnswer(compact, "EdDSA")).toBe("rejected");
  });

  it("refuses a key of another type than the algorithm names (no algorithm confusion)", async () => {
    const p256 = createPublicKey({ key: publicOf(keys.ES256) as JsonWebKey, format: "jwk" });
    const ed25519 = createPublicKey({ key: publicOf(keys.EdDSA) as JsonWebKey, format: "jwk" });
    const es256 = await joseSigned("ES256", {}, b64("{}"));
    const eddsa = await joseSigned("EdDSA", {}, b64("{}"));
    expect(() => verifyCompactJws(es256, p256, "ES256")).not.toThrow();
    expect(() => verifyCompactJws(es256.replace(/^[^.]+/, b64('{"alg":"EdDSA"}')), p256, "EdDSA")).toThrow(
      "JWS signature verification failed",
    );
    expect(() => verifyCompactJws(eddsa, p256, "EdDSA")).toThrow("JWS signature verification failed");
    expect(() => verifyCompactJws(eddsa.replace(/^[^.]+/, b64('{"alg":"ES256"}')), ed25519, "ES256")).toThrow(
      "JWS signature verification failed",
    );
  });
});

describe("signCompactJws", () => {
  it("writes byte for byte what jose's SignJWT writes (Ed25519 is deterministic)", async () => {
    const header = { alg: "EdDSA" as const, typ: "oauth-authz-req+jwt", kid: "did:key:z#1" };
    const payload = { iss: "x", nested: { a: [1, "é"] }, iat: 1 };
    const expected = await new SignJWT(payload)
      .setProtectedHeader(header)
      .sign(await importJWK(keys.EdDSA as JWK, "EdDSA"));
    const key = createPrivateKey({ key: keys.EdDSA as JsonWebKey, format: "jwk" });
    expect(signCompactJws(header, payload, key)).toBe(expected);
  });

  it("signs ES256 tokens jose verifies", async () => {
    const key = createPrivateKey({ key: keys.ES256 as JsonWebKey, format: "jwk" });
    const compact = signCompactJws({ alg: "ES256" }, { a: 1 }, key);
    expect(await joseAnswer(compact, "ES256")).toBe('{"a":1}');
  });
});

describe("public key cache: KeyObjects", () => {
  it("creates a key once per distinct key and never answers a changed key with a cached one", () => {
    const cache = createPublicKeyCache();
    const a = publicOf(keys.ES256);
    const b = publicOf(generateP256Jwk() as Jwk);
    const keyA = cache.keyObject(a, "ES256");
    expect(cache.keyObject({ ...a, kid: "ignored" } as never, "ES256")).toBe(keyA);
    expect(cache.keyObject(b, "ES256")).not.toBe(keyA);
    expect(() => cache.keyObject({ ...a, y: b.y }, "ES256")).toThrow();
    expect(keyA.export({ format: "jwk" })).toMatchObject(a);
  });

  it("refuses a key that does not fit the algorithm, and does not remember a key that fails", () => {
    const cache = createPublicKeyCache();
    expect(() => cache.keyObject(publicOf(keys.EdDSA), "ES256")).toThrow(/not an ES256 public key/);
    expect(() => cache.keyObject(publicOf(keys.ES256), "EdDSA")).toThrow(/not an EdDSA public key/);
    const bad = { kty: "OKP", crv: "Ed25519", x: "AAAA" };
    expect(() => cache.keyObject(bad, "EdDSA")).toThrow();
    expect(() => cache.keyObject(bad, "EdDSA")).toThrow();
  });

  it("is bounded and expires unused keys", () => {
    const clock = manualClock();
    const cache = createPublicKeyCache({ max: 2, ttlMs: 1000, now: clock.now });
    const jwk = publicOf(keys.EdDSA);
    const first = cache.keyObject(jwk, "EdDSA");
    clock.advance(999);
    expect(cache.keyObject(jwk, "EdDSA")).toBe(first);
    clock.advance(1001);
    expect(cache.keyObject(jwk, "EdDSA")).not.toBe(first);
    for (let i = 0; i < 5; i++) cache.keyObject(publicOf(generateEd25519Jwk() as Jwk), "EdDSA");
    expect(cache.size).toBe(2);
  });
});
