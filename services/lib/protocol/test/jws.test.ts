import { createSign } from "node:crypto";
import { compactVerify, decodeProtectedHeader, importJWK, type JWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { generatePrivateKey } from "../src/keys/generate-private-key.js";
import {
  algorithmOfKeyObject,
  importPrivateJwk,
  importPublicJwk,
  JwsError,
  signCompactJws,
  signJwsInput,
  verifyCompactJws,
} from "../src/keys/jws.js";

// keys/jws.ts against jose as an independent implementation, both ways.
const cases = [
  { alg: "ES256", type: "p256", signatureBytes: 64 },
  { alg: "EdDSA", type: "ed25519", signatureBytes: 64 },
] as const;

const payload = { iss: "https://issuer.example/acme", iat: 1_764_000_000, nonce: "n-1", nested: { a: [1, 2] } };

function keysOf(type: "p256" | "ed25519") {
  const privateKey = generatePrivateKey(type);
  const privateJwk = privateKey.export({ format: "jwk" });
  const { d: _d, ...publicJwk } = privateJwk;
  return { privateKey, privateJwk, publicJwk };
}

const reasonOf = (fn: () => unknown) => {
  try {
    fn();
    return "accepted";
  } catch (error) {
    return error instanceof JwsError ? error.reason : `other: ${String(error)}`;
  }
};

describe.each(cases)("JWS on KeyObjects, $alg", ({ alg, type, signatureBytes }) => {
  it("signs what jose verifies: the header as given with alg, the payload as JSON, a raw (P1363) signature", async () => {
    const { privateJwk, publicJwk } = keysOf(type);
    const compact = signCompactJws(
      alg,
      { typ: "dc+sd-jwt", kid: "did:key:z#z", alg: "none" },
      payload,
      importPrivateJwk(privateJwk),
    );
    const verified = await compactVerify(compact, await importJWK(publicJwk as JWK, alg), { algorithms: [alg] });
    expect(verified.protectedHeader).toEqual({ alg, typ: "dc+sd-jwt", kid: "did:key:z#z" });
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(payload);
    expect(Buffer.from(compact.split(".")[2]!, "base64url")).toHaveLength(signatureBytes);
  });

  it("signs bytes as they are", async () => {
    const { privateJwk, publicJwk } = keysOf(type);
    const bytes = new TextEncoder().encode("not json");
    const compact = signCompactJws(alg, {}, bytes, importPrivateJwk(privateJwk));
    const verified = await compactVerify(compact, await importJWK(publicJwk as JWK, alg));
    expect(new TextDecoder().decode(verified.payload)).toBe("not json");
  });

  it("verifies what jose signs, and returns its header and payload", async () => {
    const { privateJwk, publicJwk } = keysOf(type);
    const compact = await new SignJWT(payload)
      .setProtectedHeader({ alg, typ: "jwt" })
      .sign(await importJWK(privateJwk as JWK, alg));
    const verified = verifyCompactJws(compact, importPublicJwk(publicJwk), [alg]);
    expect(verified.header).toEqual(decodeProtectedHeader(compact));
    expect(verified.alg).toBe(alg);
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(payload);
  });

  it("refuses another key, a changed payload or signature, and an alg outside the list", async () => {
    const signer = keysOf(type);
    const stranger = keysOf(type);
    const compact = signCompactJws(alg, { typ: "jwt" }, payload, signer.privateKey);
    const key = importPublicJwk(signer.publicJwk);
    expect(reasonOf(() => verifyCompactJws(compact, key, [alg]))).toBe("accepted");
    expect(reasonOf(() => verifyCompactJws(compact, importPublicJwk(stranger.publicJwk), [alg]))).toBe("signature");
    const [header, body, signature] = compact.split(".") as [string, string, string];
    const otherBody = Buffer.from(JSON.stringify({ ...payload, iat: 1 })).toString("base64url");
    expect(reasonOf(() => verifyCompactJws(`${header}.${otherBody}.${signature}`, key, [alg]))).toBe("signature");
    const flipped = Buffer.from(signature, "base64url");
    flipped[5] = (flipped[5] ?? 0) ^ 1;
    expect(reasonOf(() => verifyCompactJws(`${header}.${body}.${flipped.toString("base64url")}`, key, [alg]))).toBe(
      "signature",
    );
    expect(reasonOf(() => verifyCompactJws(compact, key, [alg === "ES256" ? "EdDSA" : "ES256"]))).toBe("alg");
  });

  it("refuses a signature in another encoding (DER for ES256), padding and characters outside base64url", () => {
    const { privateKey, publicJwk } = keysOf(type);
    const compact = signCompactJws(alg, {}, payload, privateKey);
    const key = importPublicJwk(publicJwk);
    const [header, body, signature] = compact.split(".") as [string, string, string];
    expect(reasonOf(() => verifyCompactJws(`${header}.${body}.${signature}=`, key, [alg]))).toBe("malformed");
    expect(reasonOf(() => verifyCompactJws(`${header}.${body}.${signature.slice(0, -2)}+/`, key, [alg]))).toBe(
      "malformed",
    );
    expect(reasonOf(() => verifyCompactJws(`${header}.${body}!.${signature}`, key, [alg]))).toBe("malformed");
    expect(reasonOf(() => verifyCompactJws(`${header}.${body}`, key, [alg]))).toBe("malformed");
    if (alg === "ES256") {
      const der = createSign("sha256").update(`${header}.${body}`).sign(privateKey).toString("base64url");
      expect(reasonOf(() => verifyCompactJws(`${header}.${body}.${der}`, key, [alg]))).toBe("signature");
    }
  });

  it("refuses a header that is not a JSON object, has no allowed alg, or names a crit extension", () => {
    const { privateKey, publicJwk } = keysOf(type);
    const key = importPublicJwk(publicJwk);
    const withHeader = (header: unknown) => {
      const input = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from("{}").toString("base64url")}`;
      return `${input}.${signJwsInput(alg, Buffer.from(input), privateKey).toString("base64url")}`;
    };
    expect(reasonOf(() => verifyCompactJws(withHeader({ alg }), key, [alg]))).toBe("accepted");
    expect(reasonOf(() => verifyCompactJws(withHeader([alg]), key, [alg]))).toBe("malformed");
    expect(reasonOf(() => verifyCompactJws(withHeader({ typ: "jwt" }), key, [alg]))).toBe("alg");
    expect(reasonOf(() => verifyCompactJws(withHeader({ alg: "none" }), key, [alg]))).toBe("alg");
    expect(reasonOf(() => verifyCompactJws(withHeader({ alg, crit: ["b64"], b64: false }), key, [alg]))).toBe(
      "malformed",
    );
  });
});

describe("JWS keys", () => {
  it("names the algorithm of a key, and refuses to sign or verify with a key of another type", () => {
    const p256 = generatePrivateKey("p256");
    const ed25519 = generatePrivateKey("ed25519");
    expect(algorithmOfKeyObject(p256)).toBe("ES256");
    expect(algorithmOfKeyObject(ed25519)).toBe("EdDSA");
    expect(reasonOf(() => signJwsInput("EdDSA", Buffer.from("x"), p256))).toBe("key");
    const compact = signCompactJws("ES256", {}, {}, p256);
    expect(reasonOf(() => verifyCompactJws(compact, ed25519, ["ES256", "EdDSA"]))).toBe("signature");
  });

  it("imports only P-256 and Ed25519 JWKs, and a private key only with d", () => {
    const { publicJwk } = keysOf("p256");
    expect(reasonOf(() => importPublicJwk({ kty: "RSA", n: "AQAB", e: "AQAB" } as never))).toBe("key");
    expect(reasonOf(() => importPublicJwk({ kty: "EC", crv: "P-384", x: "AA", y: "AA" }))).toBe("key");
    expect(reasonOf(() => importPublicJwk({ kty: "OKP", crv: "Ed25519", x: "AAAA" }))).toBe("key");
    expect(reasonOf(() => importPrivateJwk(publicJwk))).toBe("key");
    expect(importPublicJwk({ ...publicJwk, d: "ignored" }).type).toBe("public");
  });
});
