import { createHash, createPublicKey, verify } from "node:crypto";
import { decodeSdJwt, getClaims } from "@sd-jwt/decode";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import {
  createDisclosureFrame,
  createPrivateJwkSigner,
  ed25519PublicJwk,
  generateEd25519Jwk,
  generateP256Jwk,
  issueSdJwtVc,
  type JwtSigner,
  p256PublicJwk,
  SdJwtVcIssueError,
} from "../src/index.js";
import { issueSdJwtVcWithSalts } from "../src/sd-jwt-issue/issue-sd-jwt-vc.js";

const hasher = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash("sha256")
      .update(typeof data === "string" ? data : Buffer.from(data))
      .digest(),
  );

/** An independent verifier: @sd-jwt/sd-jwt-vc with node:crypto over the issuer's public JWK. */
function verifierFor(publicJwk: object, alg: "EdDSA" | "ES256") {
  const key = createPublicKey({ key: publicJwk as never, format: "jwk" });
  return new SDJwtVcInstance({
    hasher,
    verifier: (data, signature) =>
      verify(
        alg === "EdDSA" ? null : "sha256",
        Buffer.from(data),
        alg === "EdDSA" ? key : { key, dsaEncoding: "ieee-p1363" },
        Buffer.from(signature, "base64url"),
      ),
  });
}

const claims = {
  given_name: "Erika",
  family_name: "Mustermann",
  degree: { type: "master", name: "MSc Computer Science" },
  courses: [{ title: "Cryptography", grade: "1.0" }, "seminar"],
};

describe("SD-JWT VC issuance", () => {
  it("issues an EdDSA credential with kid, cnf.jwk and every claim disclosable", async () => {
    const issuerKey = generateEd25519Jwk();
    const holder = generateP256Jwk();
    const signer = createPrivateJwkSigner(issuerKey, { kid: "did:ledger:abc#key-1" });
    const issued = await issueSdJwtVc({
      signer,
      issuer: "https://issuer.example/acme",
      vct: "https://schemas.example/schemas/university-diploma/v1",
      claims,
      holderPublicJwk: { ...p256PublicJwk(holder), kid: "ignored", use: "sig" } as never,
      issuedAt: 1_800_000_000,
      expiresAt: 1_900_000_000,
    });
    expect(issued.credential.endsWith("~")).toBe(true);
    expect(issued.issuerJwt).toBe(issued.credential.split("~")[0]);
    expect(issued.issuerJwtSha256).toBe(createHash("sha256").update(issued.issuerJwt).digest("hex"));
    expect(decodeProtectedHeader(issued.issuerJwt)).toEqual({
      typ: "dc+sd-jwt",
      kid: "did:ledger:abc#key-1",
      alg: "EdDSA",
    });

    const { payload } = await verifierFor(ed25519PublicJwk(issuerKey), "EdDSA").verify(issued.credential, {
      currentDate: 1_850_000_000,
    });
    expect(payload).toEqual({
      iss: "https://issuer.example/acme",
      iat: 1_800_000_000,
      exp: 1_900_000_000,
      vct: "https://schemas.example/schemas/university-diploma/v1",
      cnf: { jwk: p256PublicJwk(holder) },
      ...claims,
    });

    const decoded = await decodeSdJwt(issued.credential, hasher);
    const jwtPayload = decoded.jwt.payload as Record<string, unknown>;
    expect(jwtPayload._sd_alg).toBe("sha-256");
    expect(Object.keys(jwtPayload).sort()).toEqual(["_sd", "_sd_alg", "cnf", "exp", "iat", "iss", "vct"]);
    expect(jwtPayload._sd).toHaveLength(4);
    // given_name, family_name, degree, degree.type, degree.name, courses, courses[0].title, courses[0].grade
    expect(decoded.disclosures).toHaveLength(8);
    for (const disclosure of decoded.disclosures) expect(Buffer.from(disclosure.salt, "base64url")).toHaveLength(16);
    expect(new Set(decoded.disclosures.map((d) => d.salt)).size).toBe(8);
    expect(await getClaims(decoded.jwt.payload as never, decoded.disclosures, hasher)).toMatchObject(claims);
  });

  it("issues an ES256 credential with x5c through any JwtSigner", async () => {
    const issuerKey = generateP256Jwk();
    const local = createPrivateJwkSigner(issuerKey, { x5c: ["MIIBcert"] });
    const calls: Uint8Array[] = [];
    const remote: JwtSigner = {
      alg: "ES256",
      keyHeader: { x5c: ["MIIBleaf", "MIIBintermediate"] },
      async sign(input) {
        calls.push(input);
        return local.sign(input);
      },
    };
    const holder = generateEd25519Jwk();
    const issued = await issueSdJwtVc({
      signer: remote,
      issuer: "https://issuer.example/acme",
      vct: "urn:example:vct",
      claims: { name: "x" },
      holderPublicJwk: ed25519PublicJwk(holder),
      issuedAt: 1_800_000_000,
      notBefore: 1_800_000_000,
      subject: "did:key:z6Mkholder",
    });
    expect(calls).toHaveLength(1);
    expect(new TextDecoder().decode(calls[0])).toBe(issued.issuerJwt.split(".").slice(0, 2).join("."));
    expect(decodeProtectedHeader(issued.issuerJwt)).toEqual({
      typ: "dc+sd-jwt",
      x5c: ["MIIBleaf", "MIIBintermediate"],
      alg: "ES256",
    });
    const { payload } = await verifierFor(p256PublicJwk(issuerKey), "ES256").verify(issued.credential, {
      currentDate: 1_800_000_001,
    });
    expect(payload).toMatchObject({
      sub: "did:key:z6Mkholder",
      nbf: 1_800_000_000,
      cnf: { jwk: ed25519PublicJwk(holder) },
    });
  });

  it("issues byte for byte what @sd-jwt/sd-jwt-vc 0.19 issued for the same salts and signatures", async () => {
    // The packing moved from the library into pack-disclosures.ts: same disclosures, order, digests, header, payload.
    const saltsFrom = () => {
      let next = 0;
      return () => Buffer.alloc(16, ++next).toString("base64url");
    };
    const ed25519 = createPrivateJwkSigner(generateEd25519Jwk(), { kid: "did:ledger:abc#key-1" });
    const fakeEs256: JwtSigner = {
      alg: "ES256",
      keyHeader: { x5c: ["MIIBleaf", "MIIBintermediate"] },
      async sign(input) {
        return new Uint8Array(createHash("sha512").update(input).digest());
      },
    };
    const cases: Array<{ signer: JwtSigner; claims: Record<string, unknown>; extra: Record<string, unknown> }> = [
      { signer: ed25519, claims, extra: {} },
      {
        signer: ed25519,
        claims: {
          given_name: "Ada",
          family_name: "Lovelace",
          degree: { type: "master", name: "Master of Science in Mathematics" },
          institution: { name: "University of London", country: "GB" },
          awarded_on: "1843-09-01",
        },
        extra: { status: { status_list: { idx: 7, uri: "https://issuer.example/acme/status/1" } } },
      },
      {
        signer: fakeEs256,
        claims: {
          "10": "ten",
          "2": "two",
          town: "Ærøskøbing ✓ 😀",
          nothing: null,
          yes: true,
          count: 3.5,
          empty: {},
          none: [],
          nested: [[{ a: 1 }, 2], { b: { c: [{ d: "e" }] } }, "x"],
        },
        extra: { subject: "did:key:z6Mkholder", notBefore: 1_800_000_000 },
      },
      { signer: fakeEs256, claims: {}, extra: {} },
    ];
    for (const [index, { signer, claims: caseClaims, extra }] of cases.entries()) {
      const holderPublicJwk =
        index % 2 === 0 ? p256PublicJwk(generateP256Jwk()) : ed25519PublicJwk(generateEd25519Jwk());
      const input = {
        signer,
        issuer: "https://issuer.example/acme",
        vct: "urn:example:vct",
        claims: caseClaims,
        holderPublicJwk,
        issuedAt: 1_800_000_000,
        expiresAt: 1_900_000_000,
        ...extra,
      } as Parameters<typeof issueSdJwtVcWithSalts>[0];
      const ours = await issueSdJwtVcWithSalts(input, saltsFrom());
      // What issueSdJwtVc did before, through the library.
      const library = await new SDJwtVcInstance({
        hasher,
        hashAlg: "sha-256",
        saltGenerator: saltsFrom(),
        signAlg: signer.alg,
        signer: async (data) => Buffer.from(await signer.sign(new TextEncoder().encode(data))).toString("base64url"),
      }).issue(
        {
          iss: input.issuer,
          ...(input.subject === undefined ? {} : { sub: input.subject }),
          iat: input.issuedAt,
          ...(input.notBefore === undefined ? {} : { nbf: input.notBefore }),
          exp: input.expiresAt,
          vct: input.vct,
          cnf: { jwk: holderPublicJwk },
          ...(input.status === undefined ? {} : { status: input.status }),
          ...caseClaims,
        } as never,
        createDisclosureFrame(caseClaims) as never,
        { header: { typ: "dc+sd-jwt", ...signer.keyHeader } },
      );
      expect(ours.credential).toBe(library);
    }
  });

  it("refuses claim names the SD-JWT VC reserves", async () => {
    await expect(
      issueSdJwtVc({
        signer: createPrivateJwkSigner(generateEd25519Jwk(), { kid: "k" }),
        issuer: "i",
        vct: "v",
        claims: { vct: "x", cnf: {}, name: "ok" },
        holderPublicJwk: ed25519PublicJwk(generateEd25519Jwk()),
        issuedAt: 1,
      }),
    ).rejects.toThrow(new SdJwtVcIssueError("claim names reserved by SD-JWT VC: vct, cnf"));
  });

  it("refuses signing keys that are not Ed25519 or P-256 private keys", () => {
    expect(() => createPrivateJwkSigner(ed25519PublicJwk(generateEd25519Jwk()), { kid: "k" })).toThrow();
  });

  it("builds frames recursively through objects and objects in arrays", () => {
    expect(createDisclosureFrame({ a: 1, b: { c: 2, d: [{ e: 3 }, 4] }, f: [1, 2] })).toEqual({
      _sd: ["a", "b", "f"],
      b: { _sd: ["c", "d"], d: { 0: { _sd: ["e"] } } },
    });
    expect(createDisclosureFrame({})).toEqual({ _sd: [] });
  });
});
