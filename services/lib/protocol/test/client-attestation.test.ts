import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { CompactSign, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import {
  attestationPublicJwk,
  CLIENT_ATTESTATION_POP_JTI_NAMESPACE,
  ClientAttestationError,
  type ClientAttestationReplayStore,
  type ClientAttestationTrust,
  createClientAttestationJwt,
  createClientAttestationPopJwt,
  createClientAttestationTrust,
  type VerifyClientAttestationOptions,
  verifyClientAttestation,
} from "../src/client-attestation/index.js";
import { generateEd25519Jwk } from "../src/keys/ed25519.js";
import { generateP256Jwk } from "../src/keys/p256.js";

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

const AS = "https://as.example.com";
const NOW = new Date("2026-11-20T10:00:00Z");
const NOW_SECONDS = NOW.getTime() / 1000;
const CLIENT_ID = "wallet-instance-1";

function memoryReplay(): ClientAttestationReplayStore & { calls: Array<{ namespace: string; value: string }> } {
  const used = new Set<string>();
  const calls: Array<{ namespace: string; value: string }> = [];
  return {
    calls,
    async consume(namespace, value) {
      calls.push({ namespace, value });
      const key = `${namespace}\u0000${value}`;
      if (used.has(key)) return false;
      used.add(key);
      return true;
    },
  };
}

const provider = generateP256Jwk() as JWK;
const edProvider = generateEd25519Jwk() as JWK;
const instance = generateP256Jwk() as JWK;

const trust: ClientAttestationTrust = createClientAttestationTrust({
  keys: [
    { ...attestationPublicJwk(provider), kid: "provider-1" },
    { ...attestationPublicJwk(edProvider), kid: "provider-ed" },
  ],
});

const attestation = (options: Partial<Parameters<typeof createClientAttestationJwt>[0]> = {}) =>
  createClientAttestationJwt({
    providerPrivateJwk: provider,
    kid: "provider-1",
    issuer: "https://wallet-provider.example",
    clientId: CLIENT_ID,
    instancePublicJwk: instance,
    now: NOW,
    ...options,
  });

const pop = (options: Partial<Parameters<typeof createClientAttestationPopJwt>[0]> = {}) =>
  createClientAttestationPopJwt({
    instancePrivateJwk: instance,
    clientId: CLIENT_ID,
    audience: AS,
    now: NOW,
    ...options,
  });

async function verify(overrides: Partial<VerifyClientAttestationOptions> = {}) {
  return verifyClientAttestation({
    attestationHeader: await attestation(),
    popHeader: await pop(),
    trust,
    authorizationServer: AS,
    clientId: CLIENT_ID,
    replay: memoryReplay(),
    now: NOW,
    ...overrides,
  });
}

async function refusal(overrides: Partial<VerifyClientAttestationOptions>): Promise<ClientAttestationError> {
  const error = await verify(overrides).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClientAttestationError);
  return error as ClientAttestationError;
}

/** A JWT with any header and payload, signed by `key` with `alg`. */
function rawJwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: JWK) {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader(header as { alg: string })
    .sign(key);
}

describe("verifyClientAttestation: accepted", () => {
  it("returns the attested client, the wallet provider and the instance key", async () => {
    const replay = memoryReplay();
    const verified = await verify({ replay, popHeader: await pop({ jti: "pop-1" }) });
    expect(verified).toMatchObject({
      clientId: CLIENT_ID,
      walletProvider: "https://wallet-provider.example",
      instanceJwk: attestationPublicJwk(instance),
      expiresAt: new Date((NOW_SECONDS + 3600) * 1000),
    });
    expect(replay.calls).toEqual([
      { namespace: CLIENT_ATTESTATION_POP_JTI_NAMESPACE, value: `${verified.instanceJkt}:pop-1` },
    ]);
  });

  it("accepts EdDSA providers and instances, a header jwk instead of kid, an aud array and no challenge", async () => {
    const edInstance = generateEd25519Jwk() as JWK;
    const verified = await verify({
      attestationHeader: await attestation({
        providerPrivateJwk: edProvider,
        kid: undefined,
        extraHeader: { jwk: attestationPublicJwk(edProvider) },
        instancePublicJwk: edInstance,
      }),
      popHeader: await pop({ instancePrivateJwk: edInstance, extraClaims: { aud: [AS] } }),
    });
    expect(verified.clientId).toBe(CLIENT_ID);
  });

  it("accepts an attestation without kid by trying the trusted keys, and a PoP without iss or exp", async () => {
    const verified = await verify({
      attestationHeader: await attestation({ kid: undefined, issuer: undefined }),
      popHeader: await pop({ extraClaims: { iss: undefined, exp: undefined } }),
    });
    expect(verified).not.toHaveProperty("walletProvider");
  });

  it("needs no client_id to compare with", async () => {
    expect((await verify({ clientId: undefined })).clientId).toBe(CLIENT_ID);
  });
});

describe("verifyClientAttestation: refused", () => {
  it("missing headers", async () => {
    expect(await refusal({ attestationHeader: undefined, popHeader: undefined })).toMatchObject({
      reason: "missing",
      message: "OAuth-Client-Attestation and OAuth-Client-Attestation-PoP headers are required",
    });
    expect((await refusal({ attestationHeader: undefined })).message).toBe(
      "OAuth-Client-Attestation header is required",
    );
    expect((await refusal({ popHeader: "" })).message).toBe("OAuth-Client-Attestation-PoP header is required");
  });

  it("repeated or malformed headers", async () => {
    const a = await attestation();
    expect((await refusal({ attestationHeader: [a, a] })).message).toBe(
      "Exactly one OAuth-Client-Attestation header is allowed",
    );
    expect((await refusal({ attestationHeader: `${a}, ${a}` })).reason).toBe("multiple");
    expect((await refusal({ attestationHeader: "not-a-jwt" })).message).toBe("client attestation is not a compact JWT");
    expect((await refusal({ popHeader: "x.y" })).message).toBe("client attestation PoP is not a compact JWT");
  });

  it("wrong typ or alg", async () => {
    expect(await refusal({ attestationHeader: await attestation({ extraHeader: { typ: "JWT" } }) })).toMatchObject({
      reason: "typ",
      message: 'client attestation typ must be "oauth-client-attestation+jwt"',
    });
    expect((await refusal({ popHeader: await pop({ extraHeader: { typ: "dpop+jwt" } }) })).message).toBe(
      'client attestation PoP typ must be "oauth-client-attestation-pop+jwt"',
    );
    const hs = await rawJwt(
      { typ: "oauth-client-attestation+jwt", alg: "HS256" },
      { sub: CLIENT_ID, exp: NOW_SECONDS + 60 },
      new Uint8Array(32) as unknown as JWK,
    ).catch(() => "eyJ0eXAiOiJvYXV0aC1jbGllbnQtYXR0ZXN0YXRpb24rand0IiwiYWxnIjoiSFMyNTYifQ.e30.c2ln");
    expect(await refusal({ attestationHeader: hs })).toMatchObject({
      reason: "alg",
      message: "client attestation alg must be one of ES256, EdDSA",
    });
  });

  it("an untrusted wallet provider", async () => {
    const stranger = generateP256Jwk() as JWK;
    for (const header of [
      await attestation({ providerPrivateJwk: stranger, kid: "unknown-provider" }),
      await attestation({ providerPrivateJwk: stranger, kid: undefined }),
      await attestation({
        providerPrivateJwk: stranger,
        kid: undefined,
        extraHeader: { jwk: attestationPublicJwk(stranger) },
      }),
    ]) {
      expect(await refusal({ attestationHeader: header })).toMatchObject({
        reason: "untrusted",
        message: "client attestation is not signed by a trusted wallet provider",
      });
    }
  });

  it("a bad signature by a trusted provider key", async () => {
    const stranger = generateP256Jwk() as JWK;
    // Names a trusted kid but is signed by another key.
    expect(await refusal({ attestationHeader: await attestation({ providerPrivateJwk: stranger }) })).toMatchObject({
      reason: "signature",
      message: "client attestation signature is invalid",
    });
    const good = await attestation();
    const tampered = `${good.slice(0, -6)}AAAAAA`;
    expect((await refusal({ attestationHeader: tampered })).message).toBe("client attestation signature is invalid");
  });

  it("an expired or not yet valid attestation", async () => {
    const expired = await attestation({ now: new Date(NOW.getTime() - 7200_000) });
    expect(await refusal({ attestationHeader: expired })).toMatchObject({
      reason: "expired",
      message: "client attestation has expired",
    });
    const future = await attestation({ extraClaims: { nbf: NOW_SECONDS + 600 } });
    expect((await refusal({ attestationHeader: future })).message).toBe(
      "client attestation is not yet valid (nbf is in the future)",
    );
  });

  it("missing sub, exp or cnf.jwk, or a cnf key that cannot sign PoPs", async () => {
    expect((await refusal({ attestationHeader: await attestation({ extraClaims: { sub: undefined } }) })).message).toBe(
      "client attestation sub (the client_id) is required",
    );
    expect((await refusal({ attestationHeader: await attestation({ extraClaims: { exp: undefined } }) })).message).toBe(
      "client attestation exp is required and must be a number",
    );
    expect((await refusal({ attestationHeader: await attestation({ extraClaims: { cnf: {} } }) })).message).toBe(
      "client attestation cnf.jwk is required",
    );
    const rsa = { kty: "RSA", n: "AQAB", e: "AQAB" };
    expect(
      await refusal({ attestationHeader: await attestation({ extraClaims: { cnf: { jwk: rsa } } }) }),
    ).toMatchObject({
      reason: "cnf",
      message: "client attestation cnf.jwk must be an EC P-256 or OKP Ed25519 public key",
    });
    expect(
      (await refusal({ attestationHeader: await attestation({ extraClaims: { cnf: { jwk: instance } } }) })).message,
    ).toBe("client attestation cnf.jwk must be a public key (it contains private key material)");
  });

  it("client_id other than the attestation sub", async () => {
    expect(await refusal({ clientId: "another-client" })).toMatchObject({
      reason: "client_id",
      message: "client_id does not match the client attestation sub",
    });
  });

  it("a PoP not signed by the cnf key", async () => {
    const other = generateP256Jwk() as JWK;
    expect(await refusal({ popHeader: await pop({ instancePrivateJwk: other }) })).toMatchObject({
      reason: "signature",
      message: "client attestation PoP signature does not verify with the attestation's cnf key",
    });
    expect((await refusal({ popHeader: await pop({ instancePrivateJwk: generateEd25519Jwk() as JWK }) })).message).toBe(
      "client attestation PoP alg EdDSA does not fit the attestation's cnf key",
    );
  });

  it("a PoP for another audience, or another client", async () => {
    expect(await refusal({ popHeader: await pop({ audience: "https://other-as.example.com" }) })).toMatchObject({
      reason: "aud",
      message: "client attestation PoP aud must be the authorization server issuer https://as.example.com",
    });
    expect(await refusal({ popHeader: await pop({ clientId: "someone-else" }) })).toMatchObject({
      reason: "iss",
      message: "client attestation PoP iss must equal the client attestation sub (the client_id)",
    });
    expect((await refusal({ popHeader: await pop({ extraClaims: { jti: undefined } }) })).message).toBe(
      "client attestation PoP jti is required and must be a string",
    );
  });

  it("a stale, expired, far-future or timeless PoP", async () => {
    const cases: Array<[string, string]> = [
      [
        await pop({ now: new Date(NOW.getTime() - 301_000), ttlSeconds: 600 }),
        "client attestation PoP is too old (iat more than 300 s in the past)",
      ],
      [
        await pop({ now: new Date(NOW.getTime() + 120_000) }),
        "client attestation PoP iat is in the future (more than 60 s ahead)",
      ],
      [await pop({ now: new Date(NOW.getTime() - 120_000) }), "client attestation PoP has expired"],
      [await pop({ ttlSeconds: 3600 }), "client attestation PoP exp is too far ahead (more than 300 s)"],
      [await pop({ extraClaims: { iat: undefined, exp: undefined } }), "client attestation PoP must carry iat"],
    ];
    for (const [popHeader, message] of cases) {
      expect((await refusal({ popHeader })).message).toBe(message);
    }
  });

  it("a replayed PoP jti", async () => {
    const replay = memoryReplay();
    const popHeader = await pop();
    await verify({ replay, popHeader });
    expect(await refusal({ replay, popHeader })).toMatchObject({
      reason: "replay",
      message: "client attestation PoP jti has already been used",
    });
  });

  it("does not consume the jti of a PoP refused for another reason", async () => {
    const replay = memoryReplay();
    await refusal({ replay, clientId: "another-client" });
    await refusal({ replay, popHeader: await pop({ audience: "https://other.example" }) });
    expect(replay.calls).toEqual([]);
  });
});

describe("verifyClientAttestation: X.509 wallet providers", () => {
  let root: { cert: x509.X509Certificate; keys: webcrypto.CryptoKeyPair };
  let leafCert: x509.X509Certificate;
  let leafJwk: JWK;
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

  beforeAll(async () => {
    const rootKeys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    const rootCert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: "01",
      name: "CN=Wallet Provider Root",
      notBefore: new Date("2026-01-01T00:00:00Z"),
      notAfter: new Date("2028-01-01T00:00:00Z"),
      keys: rootKeys,
      signingAlgorithm: alg,
      extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
    });
    root = { cert: rootCert, keys: rootKeys };
    const leafKeys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    leafCert = await x509.X509CertificateGenerator.create({
      serialNumber: "02",
      subject: "CN=Wallet Provider Attestation Signer",
      issuer: rootCert.subject,
      notBefore: new Date("2026-01-01T00:00:00Z"),
      notAfter: new Date("2027-01-01T00:00:00Z"),
      publicKey: leafKeys.publicKey,
      signingKey: rootKeys.privateKey,
      signingAlgorithm: alg,
      extensions: [new x509.BasicConstraintsExtension(false, undefined, true)],
    });
    leafJwk = (await webcrypto.subtle.exportKey("jwk", leafKeys.privateKey)) as JWK;
  });

  const x5cAttestation = () =>
    attestation({
      providerPrivateJwk: leafJwk,
      kid: undefined,
      x5c: [Buffer.from(leafCert.rawData).toString("base64")],
    });

  it("accepts an attestation whose x5c chain leads to a trusted root", async () => {
    const x5cTrust = createClientAttestationTrust({ x5cRoots: [root.cert] });
    const verified = await verify({ trust: x5cTrust, attestationHeader: await x5cAttestation() });
    expect(verified.clientId).toBe(CLIENT_ID);
  });

  it("refuses it without trusted roots, or with other roots", async () => {
    expect(await refusal({ attestationHeader: await x5cAttestation() })).toMatchObject({
      reason: "untrusted",
      message: "client attestation x5c chain does not lead to a trusted root",
    });
    const otherKeys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    const otherRoot = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: "03",
      name: "CN=Other Root",
      notBefore: new Date("2026-01-01T00:00:00Z"),
      notAfter: new Date("2028-01-01T00:00:00Z"),
      keys: otherKeys,
      signingAlgorithm: alg,
      extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
    });
    const error = await refusal({
      trust: createClientAttestationTrust({ x5cRoots: [otherRoot] }),
      attestationHeader: await x5cAttestation(),
    });
    expect(error).toMatchObject({
      reason: "untrusted",
      message: "client attestation x5c chain does not lead to a trusted anchor",
    });
  });
});

describe("createClientAttestationTrust", () => {
  it("refuses private or unsupported keys, naming them by position only", () => {
    expect(() => createClientAttestationTrust({ keys: [provider] })).toThrow(
      "trusted wallet provider key 0 contains private key material",
    );
    expect(() =>
      createClientAttestationTrust({ keys: [attestationPublicJwk(provider), { kty: "RSA", n: "x", e: "AQAB" }] }),
    ).toThrow("trusted wallet provider key 1 must be an EC P-256 or OKP Ed25519 public key");
  });
});
