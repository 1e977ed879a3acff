import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AccessTokenError,
  type AccessTokenGrant,
  createAccessTokenSigner,
  createAccessTokenVerifier,
  MintedTokens,
} from "../src/access-token/index.js";
import { generateEd25519Jwk } from "../src/keys/ed25519.js";
import { importPublicJwk } from "../src/keys/jws.js";
import { KeyFormatError } from "../src/keys/key-format-error.js";
import { generateP256Jwk, type P256PrivateJwk, p256PublicJwk } from "../src/keys/p256.js";

const AS_URL = "http://localhost:8081";
const AUDIENCE = "http://localhost:8082/acme";
const NOW = new Date("2026-11-20T10:00:00Z");
const NOW_SECONDS = NOW.getTime() / 1000;

const grant: AccessTokenGrant = {
  audience: AUDIENCE,
  subject: "5b0d3c52-6a43-4c1e-9a54-6f2a1f0b8c11",
  tenant: "acme",
  offerId: "5b0d3c52-6a43-4c1e-9a54-6f2a1f0b8c11",
  credentialConfigurationIds: ["diploma_v1"],
  dpopRequired: false,
};

const key = generateP256Jwk();
const signer = createAccessTokenSigner({ privateJwk: key, issuer: AS_URL, now: () => NOW });

function verifierAt(now: Date, options: { jwks?: { keys: JWK[] } | URL; issuer?: string } = {}) {
  return createAccessTokenVerifier({
    jwks: options.jwks ?? signer.jwks,
    issuer: options.issuer ?? AS_URL,
    now: () => now,
  });
}
const verifier = verifierAt(NOW);

/** A token signed by `privateJwk` with arbitrary header and claims. */
function forge(options: {
  privateJwk?: P256PrivateJwk;
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
}) {
  const claims = {
    iss: AS_URL,
    aud: AUDIENCE,
    sub: grant.subject,
    iat: NOW_SECONDS,
    exp: NOW_SECONDS + 3600,
    jti: "jti-1",
    tenant: "acme",
    offer_id: grant.offerId,
    credential_configuration_ids: ["diploma_v1"],
    dpop_required: false,
    ...options.claims,
  };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: signer.kid, ...options.header })
    .sign(options.privateJwk ?? key);
}

async function refusal(token: string, options: { audience?: string; at?: Date } = {}) {
  const error = await verifierAt(options.at ?? NOW)
    .verify(token, options.audience === undefined ? {} : { audience: options.audience })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(AccessTokenError);
  const { code, reason, message } = error as AccessTokenError;
  return { code, reason, message };
}

describe("createAccessTokenSigner", () => {
  it("signs an RFC 9068 JWT: typ at+jwt, ES256, kid = key thumbprint, Attesto grant claims", async () => {
    const token = await signer.sign(grant);
    expect(decodeProtectedHeader(token)).toEqual({
      alg: "ES256",
      typ: "at+jwt",
      kid: await calculateJwkThumbprint(p256PublicJwk(key)),
    });
    expect(decodeJwt(token)).toEqual({
      iss: AS_URL,
      aud: AUDIENCE,
      sub: grant.subject,
      iat: NOW_SECONDS,
      exp: NOW_SECONDS + 3600,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenant: "acme",
      offer_id: grant.offerId,
      credential_configuration_ids: ["diploma_v1"],
      dpop_required: false,
    });
  });

  it("binds DPoP tokens with cnf.jkt and carries client_id when given", async () => {
    const token = await signer.sign({ ...grant, dpopRequired: true, jkt: "thumb", clientId: "wallet" });
    expect(decodeJwt(token)).toMatchObject({ cnf: { jkt: "thumb" }, client_id: "wallet", dpop_required: true });
  });

  it("gives every token its own jti", async () => {
    const [a, b] = await Promise.all([signer.sign(grant), signer.sign(grant)]);
    expect(decodeJwt(a!).jti).not.toBe(decodeJwt(b!).jti);
  });

  it("publishes the public key with kid, alg and use", () => {
    expect(signer.jwks).toEqual({ keys: [{ ...p256PublicJwk(key), kid: signer.kid, alg: "ES256", use: "sig" }] });
    expect(signer.ttlSeconds).toBe(3600);
    expect(JSON.stringify(signer.jwks)).not.toContain(key.d);
  });

  it("honours ttlSeconds", async () => {
    const short = createAccessTokenSigner({ privateJwk: key, issuer: AS_URL, ttlSeconds: 600, now: () => NOW });
    expect(decodeJwt(await short.sign(grant)).exp).toBe(NOW_SECONDS + 600);
  });

  it("refuses a key that is not a P-256 private key", () => {
    expect(() =>
      createAccessTokenSigner({ privateJwk: generateEd25519Jwk() as unknown as P256PrivateJwk, issuer: AS_URL }),
    ).toThrow(KeyFormatError);
    expect(() =>
      createAccessTokenSigner({ privateJwk: p256PublicJwk(key) as unknown as P256PrivateJwk, issuer: AS_URL }),
    ).toThrow(KeyFormatError);
  });
});

describe("createAccessTokenVerifier", () => {
  it("returns the camelCase claims of a valid token", async () => {
    const token = await signer.sign({ ...grant, jkt: "thumb", dpopRequired: true });
    const claims = await verifier.verify(token, { audience: AUDIENCE });
    expect(claims).toEqual({
      issuer: AS_URL,
      audience: AUDIENCE,
      subject: grant.subject,
      jti: decodeJwt(token).jti,
      issuedAt: NOW,
      expiresAt: new Date(NOW.getTime() + 3_600_000),
      tenant: "acme",
      offerId: grant.offerId,
      credentialConfigurationIds: ["diploma_v1"],
      dpopRequired: true,
      jkt: "thumb",
    });
  });

  it("leaves jkt and clientId out of a Bearer token's claims", async () => {
    const claims = await verifier.verify(await signer.sign(grant));
    expect(claims).not.toHaveProperty("jkt");
    expect(claims).not.toHaveProperty("clientId");
  });

  it("refuses an expired token", async () => {
    const token = await signer.sign(grant);
    await expect(verifierAt(new Date(NOW.getTime() + 3_599_000)).verify(token)).resolves.toBeDefined();
    expect(await refusal(token, { at: new Date(NOW.getTime() + 3_600_000) })).toEqual({
      code: "invalid_token",
      reason: "expired",
      message: "access token has expired",
    });
  });

  it("refuses a forged token: another key under our kid, or an unknown kid", async () => {
    const other = generateP256Jwk();
    expect(await refusal(await forge({ privateJwk: other }))).toMatchObject({
      reason: "invalid_signature",
      message: "access token signature is invalid",
    });
    expect(await refusal(await forge({ privateJwk: other, header: { kid: "someone-else" } }))).toMatchObject({
      reason: "unknown_key",
    });
  });

  it("refuses a tampered payload", async () => {
    const [header, , signature] = (await signer.sign(grant)).split(".");
    const payload = Buffer.from(JSON.stringify({ ...decodeJwt(await signer.sign(grant)), tenant: "evil" })).toString(
      "base64url",
    );
    expect(await refusal(`${header}.${payload}.${signature}`)).toMatchObject({ reason: "invalid_signature" });
  });

  it("refuses a token from another issuer", async () => {
    expect(await refusal(await forge({ claims: { iss: "http://evil.example" } }))).toEqual({
      code: "invalid_token",
      reason: "wrong_issuer",
      message: "access token was issued by another authorization server",
    });
  });

  it("refuses a token of another typ (an ID token, a plain JWT)", async () => {
    for (const typ of ["JWT", "dpop+jwt"]) {
      expect(await refusal(await forge({ header: { typ } })), typ).toMatchObject({
        reason: "wrong_type",
        message: 'access token typ must be "at+jwt"',
      });
    }
    expect(await refusal(await forge({ header: { typ: undefined } }))).toMatchObject({ reason: "wrong_type" });
    await expect(verifier.verify(await forge({ header: { typ: "application/at+jwt" } }))).resolves.toBeDefined();
  });

  it("refuses a token for another audience when one is required", async () => {
    const token = await signer.sign(grant);
    expect(await refusal(token, { audience: "http://localhost:8082/other" })).toMatchObject({
      reason: "wrong_audience",
    });
  });

  it("refuses tokens that are not ES256 JWTs", async () => {
    const hs = await new SignJWT({ iss: AS_URL })
      .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: signer.kid })
      .sign(new TextEncoder().encode("x".repeat(32)));
    expect(await refusal(hs)).toMatchObject({ reason: "malformed", message: "access token must be signed with ES256" });
    expect(await refusal("not-a-token")).toMatchObject({ reason: "malformed" });
    expect(await refusal("a.b.c")).toMatchObject({ reason: "malformed" });
  });

  it("refuses a signed token that lacks Attesto grant claims", async () => {
    expect(await refusal(await forge({ claims: { tenant: undefined } }))).toMatchObject({
      reason: "invalid_claims",
      message: "access token claim tenant is missing or invalid",
    });
    expect(await refusal(await forge({ claims: { jti: undefined } }))).toMatchObject({ reason: "invalid_claims" });
  });

  describe("with the key set at a URL (jwks_uri)", () => {
    let server: Server;
    let jwksUrl: URL;
    beforeAll(async () => {
      server = createServer((_request, response) => {
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify(signer.jwks));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      jwksUrl = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`);
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("fetches the keys and verifies", async () => {
      const remote = verifierAt(NOW, { jwks: jwksUrl });
      await expect(remote.verify(await signer.sign(grant))).resolves.toMatchObject({ tenant: "acme" });
    });

    it("reports an unreachable key set as key_set_unavailable", async () => {
      const down = verifierAt(NOW, { jwks: new URL("http://127.0.0.1:1/.well-known/jwks.json") });
      const error = await down.verify(await signer.sign(grant)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AccessTokenError);
      expect(error).toMatchObject({ reason: "key_set_unavailable" });
    });
  });
});

describe("tokens minted in this process (MintedTokens)", () => {
  /** A signer and verifier sharing one memory, as the all-in-one's auth server and issuer share the process's. */
  function sharing(minted = new MintedTokens()) {
    const signing = createAccessTokenSigner({ privateJwk: key, issuer: AS_URL, now: () => NOW, minted });
    const at = (now: Date) => createAccessTokenVerifier({ jwks: signing.jwks, issuer: AS_URL, now: () => now, minted });
    return { minted, signing, verifying: at(NOW), at };
  }
  /** A token whose signature is wrong: the last signature byte flipped. */
  const badSignature = (token: string) => {
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const bytes = Buffer.from(signature, "base64url");
    bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 1;
    return `${header}.${payload}.${bytes.toString("base64url")}`;
  };

  it("remembers what the signer signed, with its public key; nothing else", async () => {
    const { minted, signing } = sharing();
    const token = await signing.sign(grant);
    expect(minted.vouches(token, importPublicJwk(key))).toBe(true);
    expect(minted.vouches(badSignature(token), importPublicJwk(key))).toBe(false);
    expect(minted.vouches(token, importPublicJwk(generateP256Jwk()))).toBe(false);
  });

  it("is consulted instead of the signature check: a remembered token passes even with a broken signature", async () => {
    // Proves the verifier asks the memory (the only way it can be seen from outside): only the
    // signer records tokens, and it records exactly what it signed.
    const { minted, verifying } = sharing();
    const token = badSignature(await signer.sign(grant));
    expect(await refusal(token)).toMatchObject({ reason: "invalid_signature" });
    minted.remember(token, importPublicJwk(key));
    await expect(verifying.verify(token, { audience: AUDIENCE })).resolves.toMatchObject({ tenant: "acme" });
  });

  it("checks everything but the signature as always: expiry, audience, typ", async () => {
    const { signing, verifying, at } = sharing();
    const token = await signing.sign(grant);
    await expect(verifying.verify(token, { audience: AUDIENCE })).resolves.toBeDefined();
    await expect(at(new Date(NOW.getTime() + 3_600_000)).verify(token)).rejects.toMatchObject({ reason: "expired" });
    await expect(verifying.verify(token, { audience: "http://localhost:8082/other" })).rejects.toMatchObject({
      reason: "wrong_audience",
    });
  });

  it("verifies in full what it does not hold: a changed byte, another process's token, another key under our kid", async () => {
    const { minted, verifying } = sharing();
    const signed = await createAccessTokenSigner({ privateJwk: key, issuer: AS_URL, now: () => NOW, minted }).sign(
      grant,
    );
    await expect(verifying.verify(badSignature(signed))).rejects.toMatchObject({ reason: "invalid_signature" });
    // Signed elsewhere (another memory: another process) with the right key: verified, and valid.
    const elsewhere = await createAccessTokenSigner({
      privateJwk: key,
      issuer: AS_URL,
      now: () => NOW,
      minted: new MintedTokens(),
    }).sign(grant);
    expect(minted.vouches(elsewhere, importPublicJwk(key))).toBe(false);
    await expect(verifying.verify(elsewhere)).resolves.toBeDefined();
    // Remembered under another key than the one the key set holds for the kid: the full check refuses it.
    const other = generateP256Jwk();
    const forged = await forge({ privateJwk: other });
    minted.remember(forged, importPublicJwk(other));
    await expect(verifying.verify(forged)).rejects.toMatchObject({ reason: "invalid_signature" });
  });

  it("holds the newest tokens only, oldest out first", async () => {
    const minted = new MintedTokens(2);
    const publicKey = importPublicJwk(key);
    const signing = createAccessTokenSigner({ privateJwk: key, issuer: AS_URL, now: () => NOW, minted });
    const [first, second, third] = [await signing.sign(grant), await signing.sign(grant), await signing.sign(grant)];
    expect([first, second, third].map((token) => minted.vouches(token, publicKey))).toEqual([false, true, true]);
  });
});
