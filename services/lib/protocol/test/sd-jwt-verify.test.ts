import "reflect-metadata";
import { createHash, createPrivateKey, randomBytes, sign, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { describe, expect, it } from "vitest";
import {
  generateEd25519Jwk,
  generateP256Jwk,
  holderJwkOf,
  parsePemCertificates,
  parseSdJwtPresentation,
  SdJwtVerificationError,
  sdDigest,
  verifyJwsSignature,
  verifyKeyBindingJwt,
  verifyX5cChain,
} from "../src/index.js";

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

type Jwk = { kty?: string; crv?: string; x?: string; y?: string; d?: string };

const sha256 = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash("sha256")
      .update(typeof data === "string" ? data : Buffer.from(data))
      .digest(),
  );

function signerOf(jwk: Jwk) {
  const key = createPrivateKey({ key: jwk as never, format: "jwk" });
  return async (input: string) =>
    (jwk.kty === "OKP"
      ? sign(null, Buffer.from(input), key)
      : sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" })
    ).toString("base64url");
}

const publicOf = ({ d: _d, ...rest }: Jwk) => rest;

const issuerKey = generateEd25519Jwk();
const holderKey = generateP256Jwk();
const now = Math.floor(Date.now() / 1000);

function instance(signingKey: Jwk = issuerKey) {
  return new SDJwtVcInstance({
    hasher: sha256,
    hashAlg: "sha-256",
    saltGenerator: () => randomBytes(16).toString("base64url"),
    signAlg: signingKey.kty === "OKP" ? "EdDSA" : "ES256",
    signer: signerOf(signingKey),
    kbSignAlg: "ES256",
    kbSigner: signerOf(holderKey),
  });
}

async function issue(header: Record<string, unknown> = { kid: "did:key:issuer#1" }) {
  return instance().issue(
    {
      iss: "did:key:issuer",
      vct: "https://schemas.example/pid/v1",
      iat: now,
      exp: now + 3600,
      cnf: { jwk: publicOf(holderKey) },
      given_name: "Ada",
      family_name: "Lovelace",
      address: { locality: "London", country: "GB" },
      nationalities: ["GB", "FR"],
    },
    { _sd: ["given_name", "family_name", "address"], address: { _sd: ["locality"] }, nationalities: { _sd: [0, 1] } },
    { header: { typ: "dc+sd-jwt", ...header } },
  );
}

const reason = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof SdJwtVerificationError) return error.code;
    throw error;
  }
  return "no error";
};

async function asyncReason(fn: () => Promise<unknown>) {
  try {
    await fn();
  } catch (error) {
    if (error instanceof SdJwtVerificationError) return error.code;
    throw error;
  }
  return "ok";
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("parseSdJwtPresentation (RFC 9901 processing)", () => {
  it("replaces digests with the disclosed claims, recursively, and keeps only what is disclosed", async () => {
    const credential = await issue();
    const presented = await instance().present(credential, { given_name: true, nationalities: { 1: true } });
    const parsed = parseSdJwtPresentation(presented);
    expect(parsed.claims).toMatchObject({
      given_name: "Ada",
      nationalities: ["FR"],
      vct: "https://schemas.example/pid/v1",
    });
    expect(parsed.claims).not.toHaveProperty("family_name");
    expect(parsed.claims).not.toHaveProperty("_sd");
    expect(parsed.claims).not.toHaveProperty("_sd_alg");
    expect(parsed.keyBindingJwt).toBeUndefined();
    expect(parsed.sdHashInput.endsWith("~")).toBe(true);
    const full = parseSdJwtPresentation(credential);
    expect(full.claims).toMatchObject({ address: { locality: "London", country: "GB" }, family_name: "Lovelace" });
  });

  it("rejects alg none, unknown algorithms and non-SD-JWT input", async () => {
    const credential = await issue();
    const [jwt, ...rest] = credential.split("~");
    const [, payload] = (jwt ?? "").split(".");
    expect(reason(() => parseSdJwtPresentation(`${encode({ alg: "none" })}.${payload}.sig~${rest.join("~")}`))).toBe(
      "alg_not_allowed",
    );
    expect(reason(() => parseSdJwtPresentation(`${encode({ alg: "HS256" })}.${payload}.sig~`))).toBe("alg_not_allowed");
    expect(reason(() => parseSdJwtPresentation("not-an-sd-jwt"))).toBe("malformed_sd_jwt");
    expect(reason(() => parseSdJwtPresentation(`${jwt}~~`))).toBe("malformed_sd_jwt");
  });

  it("rejects duplicate disclosures, unreferenced disclosures and malformed ones", async () => {
    const credential = await issue();
    const parts = credential.split("~");
    const first = parts[1]!;
    expect(reason(() => parseSdJwtPresentation(`${parts[0]}~${first}~${first}~`))).toBe("duplicate_disclosure");
    const stray = encode([randomBytes(16).toString("base64url"), "role", "admin"]);
    expect(reason(() => parseSdJwtPresentation(`${credential}${stray}~`))).toBe("unreferenced_disclosure");
    expect(reason(() => parseSdJwtPresentation(`${parts[0]}~${encode(["salt"])}~`))).toBe("malformed_disclosure");
    expect(reason(() => parseSdJwtPresentation(`${parts[0]}~${encode(["salt", "_sd", 1])}~`))).toBe(
      "malformed_disclosure",
    );
  });

  it("rejects a digest that appears twice and a disclosed name that already exists", () => {
    const disclosure = encode(["c2FsdHNhbHRzYWx0c2FsdA", "given_name", "Ada"]);
    const digest = sdDigest(disclosure, "sha-256");
    const jwtOf = (payload: unknown) => `${encode({ alg: "EdDSA", typ: "dc+sd-jwt" })}.${encode(payload)}.c2ln`;
    expect(reason(() => parseSdJwtPresentation(`${jwtOf({ _sd: [digest, digest] })}~${disclosure}~`))).toBe(
      "duplicate_digest",
    );
    expect(
      reason(() => parseSdJwtPresentation(`${jwtOf({ _sd: [digest], nested: { _sd: [digest] } })}~${disclosure}~`)),
    ).toBe("duplicate_digest");
    expect(reason(() => parseSdJwtPresentation(`${jwtOf({ given_name: "Eve", _sd: [digest] })}~${disclosure}~`))).toBe(
      "claim_name_conflict",
    );
    expect(reason(() => parseSdJwtPresentation(`${jwtOf({ _sd_alg: "md5", _sd: [] })}~`))).toBe("unsupported_sd_alg");
  });
});

describe("issuer signature and key binding", () => {
  it("verifies the issuer signature with the issuer key only, and detects tampering", async () => {
    const credential = await issue();
    const parsed = parseSdJwtPresentation(credential);
    expect(await verifyJwsSignature(parsed.issuerJwt.compact, publicOf(issuerKey))).toBe(true);
    expect(await verifyJwsSignature(parsed.issuerJwt.compact, publicOf(generateEd25519Jwk()))).toBe(false);
    expect(await verifyJwsSignature(parsed.issuerJwt.compact, publicOf(holderKey))).toBe(false);
    const [h, p, s] = parsed.issuerJwt.compact.split(".");
    const tampered = `${h}.${encode({ ...JSON.parse(Buffer.from(p!, "base64url").toString()), iss: "x" })}.${s}`;
    expect(await verifyJwsSignature(tampered, publicOf(issuerKey))).toBe(false);
    // The header's alg must be the issuer key's (EdDSA), an allowed one: none, HS256 or ES256 fail.
    const header = JSON.parse(Buffer.from(h!, "base64url").toString());
    for (const alg of ["none", "HS256", "ES256"]) {
      expect(await verifyJwsSignature(`${encode({ ...header, alg })}.${p}.${s}`, publicOf(issuerKey)), alg).toBe(false);
    }
    expect(await verifyJwsSignature("not.a-jws", publicOf(issuerKey))).toBe(false);
    expect(await verifyJwsSignature(parsed.issuerJwt.compact, { kty: "RSA", n: "x", e: "AQAB" })).toBe(false);
  });

  const expected = {
    audience: "decentralized_identifier:did:key:verifier",
    nonce: "n-1",
    now,
    maxAgeSeconds: 300,
    clockSkewSeconds: 60,
  };

  async function presentWith(kb: Record<string, unknown>) {
    const credential = await issue();
    return instance().present(
      credential,
      { given_name: true },
      {
        kb: { payload: { iat: now, aud: expected.audience, nonce: expected.nonce, ...kb } as never },
      },
    );
  }

  it("accepts a correct KB-JWT and names each violated rule", async () => {
    const ok = parseSdJwtPresentation(await presentWith({}));
    const holder = holderJwkOf(ok.claims)!;
    expect(holder).toEqual(publicOf(holderKey));
    expect(await asyncReason(() => verifyKeyBindingJwt(ok, holder, expected))).toBe("ok");
    expect(await asyncReason(() => verifyKeyBindingJwt(ok, publicOf(generateP256Jwk()), expected))).toBe(
      "kb_jwt_signature_invalid",
    );
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ aud: "did:key:verifier" }, "kb_jwt_aud_mismatch"],
      [{ nonce: "other" }, "kb_jwt_nonce_mismatch"],
      [{ iat: now - 301 }, "kb_jwt_iat_stale"],
      [{ iat: now + 61 }, "kb_jwt_iat_in_future"],
    ];
    for (const [kb, code] of cases) {
      const parsed = parseSdJwtPresentation(await presentWith(kb));
      expect(await asyncReason(() => verifyKeyBindingJwt(parsed, holder, expected))).toBe(code);
    }
    const withoutKb = parseSdJwtPresentation(await instance().present(await issue(), { given_name: true }));
    expect(await asyncReason(() => verifyKeyBindingJwt(withoutKb, holder, expected))).toBe("kb_jwt_missing");
  });

  it("detects a disclosure removed after key binding (sd_hash) and a wrong typ", async () => {
    const credential = await issue();
    const presented = await instance().present(
      credential,
      { given_name: true, family_name: true },
      {
        kb: { payload: { iat: now, aud: expected.audience, nonce: expected.nonce } as never },
      },
    );
    const parts = presented.split("~");
    expect(parts).toHaveLength(4);
    const dropped = parseSdJwtPresentation([parts[0], parts[1], parts[3]].join("~"));
    expect(dropped.claims).toHaveProperty(dropped.disclosures[0]!.name!);
    expect(await asyncReason(() => verifyKeyBindingJwt(dropped, publicOf(holderKey), expected))).toBe(
      "kb_jwt_sd_hash_mismatch",
    );
    const kb = parts[3]!.split(".");
    const wrongTyp = `${encode({ alg: "ES256", typ: "JWT" })}.${kb[1]}.${kb[2]}`;
    const parsedWrongTyp = parseSdJwtPresentation([...parts.slice(0, -1), wrongTyp].join("~"));
    expect(await asyncReason(() => verifyKeyBindingJwt(parsedWrongTyp, publicOf(holderKey), expected))).toBe(
      "kb_jwt_typ_invalid",
    );
  });
});

describe("x5c chains", () => {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const day = 24 * 3600 * 1000;

  async function ca(
    name: string,
    issuer?: { cert: x509.X509Certificate; keys: webcrypto.CryptoKeyPair },
    notAfter?: Date,
  ) {
    const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomBytes(8).toString("hex"),
      subject: `CN=${name}`,
      issuer: issuer ? issuer.cert.subject : `CN=${name}`,
      notBefore: new Date(Date.now() - day),
      notAfter: notAfter ?? new Date(Date.now() + 365 * day),
      signingAlgorithm: alg,
      publicKey: keys.publicKey,
      signingKey: issuer ? issuer.keys.privateKey : keys.privateKey,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        ...(issuer ? [await x509.AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey)] : []),
      ],
    });
    return { cert, keys };
  }

  async function leaf(issuer: { cert: x509.X509Certificate; keys: webcrypto.CryptoKeyPair }, notAfter?: Date) {
    const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomBytes(8).toString("hex"),
      subject: "CN=Issuer tenant",
      issuer: issuer.cert.subject,
      notBefore: new Date(Date.now() - day),
      notAfter: notAfter ?? new Date(Date.now() + 30 * day),
      signingAlgorithm: alg,
      publicKey: keys.publicKey,
      signingKey: issuer.keys.privateKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        await x509.AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey),
      ],
    });
    return { cert, keys };
  }

  const b64 = (cert: x509.X509Certificate) => Buffer.from(cert.rawData).toString("base64");

  it("validates leaf -> intermediate -> root and returns the leaf key and AKIs", async () => {
    const root = await ca("Root");
    const intermediate = await ca("Issuing CA", root);
    const signer = await leaf(intermediate);
    const result = await verifyX5cChain([b64(signer.cert), b64(intermediate.cert)], [root.cert], new Date());
    const exported = await webcrypto.subtle.exportKey("jwk", signer.keys.publicKey);
    expect(result.leafPublicJwk).toMatchObject({ kty: "EC", crv: "P-256", x: exported.x, y: exported.y });
    expect(result.authorityKeyIds).toHaveLength(2);
    const rootSki = root.cert.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId;
    expect(result.authorityKeyIds).toContain(Buffer.from(rootSki, "hex").toString("base64url"));
    // The anchor repeated at the end of x5c is tolerated; PEM anchors parse.
    const anchors = parsePemCertificates(root.cert.toString("pem"));
    await expect(
      verifyX5cChain([b64(signer.cert), b64(intermediate.cert), b64(root.cert)], anchors, new Date()),
    ).resolves.toBeTruthy();
  });

  it("rejects untrusted, broken and expired chains", async () => {
    const root = await ca("Root");
    const other = await ca("Other root");
    const intermediate = await ca("Issuing CA", root);
    const signer = await leaf(intermediate);
    const chain = [b64(signer.cert), b64(intermediate.cert)];
    expect(await asyncReason(() => verifyX5cChain(chain, [other.cert], new Date()))).toBe(
      "untrusted_certificate_chain",
    );
    expect(await asyncReason(() => verifyX5cChain([b64(signer.cert)], [root.cert], new Date()))).toBe(
      "untrusted_certificate_chain",
    );
    expect(await asyncReason(() => verifyX5cChain(chain, [root.cert], new Date(Date.now() + 60 * day)))).toBe(
      "certificate_expired",
    );
    expect(await asyncReason(() => verifyX5cChain(["%%%"], [root.cert], new Date()))).toBe("x5c_malformed");
    expect(await asyncReason(() => verifyX5cChain([], [root.cert], new Date()))).toBe("x5c_malformed");
    const stranger = await leaf(await ca("Issuing CA", other));
    expect(
      await asyncReason(() => verifyX5cChain([b64(stranger.cert), b64(intermediate.cert)], [root.cert], new Date())),
    ).toBe("certificate_chain_invalid");
  });
});
