import { type JWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import {
  CredentialProofError,
  createCNonces,
  didKeyFromPublicJwk,
  ed25519PublicJwk,
  generateEd25519Jwk,
  generateP256Jwk,
  p256PublicJwk,
  type VerifyCredentialProofOptions,
  verificationMethodsOf,
  verifyCredentialProof,
} from "../src/index.js";

const ISSUER = "https://issuer.example/acme";
const cNonces = createCNonces({ secret: "proof-test-secret-0123456789abcdefgh" });
const p256 = generateP256Jwk();
const ed = generateEd25519Jwk();
const LEDGER_DID = "did:ledger:7Nbh2aGXWwAvSGDnmBWrT1";
const ledgerDocument = {
  "@context": ["https://www.w3.org/ns/did/v1"],
  id: LEDGER_DID,
  verificationMethod: [
    { id: `${LEDGER_DID}#key-1`, type: "JsonWebKey2020", controller: LEDGER_DID, publicKeyJwk: ed25519PublicJwk(ed) },
  ],
  authentication: [`${LEDGER_DID}#key-1`],
  assertionMethod: [`${LEDGER_DID}#key-1`],
};

const options = (extra: Partial<VerifyCredentialProofOptions> = {}): VerifyCredentialProofOptions => ({
  audience: ISSUER,
  cNonces,
  resolveDidDocument: async (did) => (did === LEDGER_DID ? ledgerDocument : undefined),
  ...extra,
});

interface ProofSpec {
  header?: Record<string, unknown>;
  payload?: Record<string, unknown>;
  key?: JWK;
  alg?: string;
}

async function proof(spec: ProofSpec = {}): Promise<string> {
  const key = spec.key ?? p256;
  const alg = spec.alg ?? (key.kty === "OKP" ? "EdDSA" : "ES256");
  const publicJwk = key.kty === "OKP" ? ed25519PublicJwk(key) : p256PublicJwk(key);
  return new SignJWT({
    aud: ISSUER,
    iat: Math.floor(Date.now() / 1000),
    nonce: cNonces.create().value,
    ...spec.payload,
  })
    .setProtectedHeader({ typ: "openid4vci-proof+jwt", alg, jwk: publicJwk, ...spec.header } as never)
    .sign(key as never);
}

async function refusal(jwt: string, extra?: Partial<VerifyCredentialProofOptions>): Promise<string> {
  try {
    await verifyCredentialProof(jwt, options(extra));
  } catch (error) {
    expect(error).toBeInstanceOf(CredentialProofError);
    expect((error as CredentialProofError).code).toBe("invalid_proof");
    return (error as Error).message;
  }
  throw new Error("expected the proof to be refused");
}

describe("OID4VCI jwt proof verification", () => {
  it("accepts an ES256 proof with a jwk and returns the public key and nonce expiry", async () => {
    const verified = await verifyCredentialProof(await proof({ payload: { iss: "wallet-client" } }), options());
    expect(verified).toMatchObject({ alg: "ES256", publicJwk: p256PublicJwk(p256), issuer: "wallet-client" });
    expect(verified.kid).toBeUndefined();
    expect(verified.nonceExpiresAt.getTime()).toBeGreaterThan(Date.now());
  });

  it("accepts an EdDSA proof named by a did:key kid, with or without the fragment", async () => {
    const did = didKeyFromPublicJwk(ed25519PublicJwk(ed));
    for (const kid of [`${did}#${did.slice(8)}`, did]) {
      const verified = await verifyCredentialProof(
        await proof({ key: ed, header: { jwk: undefined, kid } }),
        options(),
      );
      expect(verified).toMatchObject({
        alg: "EdDSA",
        did,
        kid: `${did}#${did.slice(8)}`,
        publicJwk: ed25519PublicJwk(ed),
      });
    }
  });

  it("accepts a P-256 did:key kid", async () => {
    const did = didKeyFromPublicJwk(p256PublicJwk(p256));
    const verified = await verifyCredentialProof(
      await proof({ header: { jwk: undefined, kid: `${did}#${did.slice(8)}` } }),
      options(),
    );
    expect(verified).toMatchObject({ alg: "ES256", did, publicJwk: p256PublicJwk(p256) });
  });

  it("resolves a did:ledger kid through the resolver", async () => {
    const verified = await verifyCredentialProof(
      await proof({ key: ed, header: { jwk: undefined, kid: `${LEDGER_DID}#key-1` } }),
      options(),
    );
    expect(verified).toMatchObject({ did: LEDGER_DID, kid: `${LEDGER_DID}#key-1`, publicJwk: ed25519PublicJwk(ed) });
  });

  it("refuses a wrong header", async () => {
    expect(await refusal("not-a-jwt")).toBe("proof is not a compact JWT");
    expect(await refusal(await proof({ header: { typ: "JWT" } }))).toBe('proof typ must be "openid4vci-proof+jwt"');
    const hs256 = await new SignJWT({ aud: ISSUER })
      .setProtectedHeader({ typ: "openid4vci-proof+jwt", alg: "HS256" })
      .sign(new Uint8Array(32));
    expect(await refusal(hs256)).toBe("proof alg must be one of ES256, EdDSA");
    const [, payload] = (await proof()).split(".");
    const none = `${Buffer.from(JSON.stringify({ typ: "openid4vci-proof+jwt", alg: "none", jwk: p256PublicJwk(p256) })).toString("base64url")}.${payload}.`;
    expect(await refusal(none)).toBe("proof alg must be one of ES256, EdDSA");
  });

  it("refuses keys named twice, in x5c, private or of another type", async () => {
    const did = didKeyFromPublicJwk(p256PublicJwk(p256));
    expect(await refusal(await proof({ header: { kid: did } }))).toBe(
      "proof header must name its key with exactly one of jwk or kid",
    );
    expect(await refusal(await proof({ header: { jwk: undefined } }))).toBe(
      "proof header must name its key with exactly one of jwk or kid",
    );
    expect(await refusal(await proof({ header: { jwk: undefined, x5c: ["MII"] } }))).toBe(
      "proof keys in x5c are not supported; use jwk or kid",
    );
    expect(await refusal(await proof({ header: { jwk: p256 } }))).toBe(
      "proof jwk must not contain private key material",
    );
    expect(await refusal(await proof({ header: { jwk: { kty: "RSA", n: "x", e: "AQAB" } } }))).toBe(
      "proof jwk must be an Ed25519 (OKP) or P-256 (EC) public key",
    );
    expect(await refusal(await proof({ key: ed, alg: "EdDSA", header: { jwk: p256PublicJwk(p256) } }))).toBe(
      "proof alg EdDSA does not match its key type",
    );
  });

  it("refuses kids that are not resolvable DID URLs", async () => {
    const noKid = (kid: string) => proof({ header: { jwk: undefined, kid } });
    expect(await refusal(await noKid("key-1"))).toBe("proof kid must be a DID URL (did:key or did:ledger)");
    expect(await refusal(await noKid("did:key:zNotBase58!"))).toBe("proof kid is not a DID URL");
    expect(await refusal(await noKid("did:key:z6Mk"))).toMatch(/^proof kid is not a valid did:key/);
    const did = didKeyFromPublicJwk(p256PublicJwk(p256));
    expect(await refusal(await noKid(`${did}#other`))).toBe("proof kid fragment does not name the did:key's key");
    expect(await refusal(await noKid("did:ledger:unknown1"))).toBe("proof kid DID cannot be resolved");
    expect(await refusal(await noKid(`${LEDGER_DID}#key-2`))).toBe("proof kid does not name a key of its DID document");
    expect(await refusal(await noKid(`${LEDGER_DID}#key-1`), { resolveDidDocument: undefined })).toBe(
      "proof DID method of kid is not supported",
    );
  });

  it("lets resolver failures (ledger unreachable) through instead of calling the proof invalid", async () => {
    const unreachable = new Error("ledger unreachable");
    await expect(
      verifyCredentialProof(await proof({ key: ed, header: { jwk: undefined, kid: `${LEDGER_DID}#key-1` } }), {
        ...options(),
        resolveDidDocument: async () => {
          throw unreachable;
        },
      }),
    ).rejects.toBe(unreachable);
  });

  it("refuses a signature by another key than the one named", async () => {
    const other = generateP256Jwk();
    expect(await refusal(await proof({ key: other, header: { jwk: p256PublicJwk(p256) } }))).toBe(
      "proof signature is invalid",
    );
    const did = didKeyFromPublicJwk(p256PublicJwk(p256));
    expect(await refusal(await proof({ key: other, header: { jwk: undefined, kid: did } }))).toBe(
      "proof signature is invalid",
    );
  });

  it("checks aud, iat, exp, iss and nonce", async () => {
    // A fixed clock: a second boundary between signing and checking must not move the window.
    const now = Math.floor(Date.now() / 1000);
    const fixed = { now: () => now * 1000 };
    expect(await refusal(await proof({ payload: { aud: undefined } }))).toBe("proof has no aud");
    expect(await refusal(await proof({ payload: { aud: "https://issuer.example/other" } }))).toBe(
      "proof aud must be the credential issuer identifier",
    );
    expect((await verifyCredentialProof(await proof({ payload: { aud: ["x", ISSUER] } }), options())).alg).toBe(
      "ES256",
    );
    expect(await refusal(await proof({ payload: { iat: undefined } }))).toBe(
      "proof iat must be a number (Unix seconds)",
    );
    expect(await refusal(await proof({ payload: { iat: String(now) } }))).toBe(
      "proof iat must be a number (Unix seconds)",
    );
    expect(await refusal(await proof({ payload: { iat: now - 301 } }), fixed)).toBe("proof is too old (iat)");
    expect(await refusal(await proof({ payload: { iat: now + 61 } }), fixed)).toBe("proof iat is in the future");
    for (const iat of [now + 60, now - 300]) {
      expect((await verifyCredentialProof(await proof({ payload: { iat } }), options(fixed))).issuedAt).toBe(iat);
    }
    expect(await refusal(await proof({ payload: { exp: now - 1 } }), fixed)).toBe("proof has expired (exp)");
    expect(await refusal(await proof({ payload: { iss: 42 } }))).toBe("proof iss must be a string");
    expect(await refusal(await proof({ payload: { nonce: undefined } }))).toBe(
      "proof has no nonce (get one from the nonce endpoint)",
    );
    expect(await refusal(await proof({ payload: { nonce: "made-up" } }))).toBe(
      "proof nonce is not a c_nonce of this issuer",
    );
    const expired = createCNonces({
      secret: "proof-test-secret-0123456789abcdefgh",
      now: () => Date.now() - 400_000,
    }).create().value;
    expect(await refusal(await proof({ payload: { nonce: expired } }))).toBe("proof nonce has expired");
  });
});

describe("DID document verification methods", () => {
  it("lists keys, optionally only those of a verification relationship, with relative ids made absolute", () => {
    const key2 = p256PublicJwk(generateP256Jwk());
    const document = {
      id: LEDGER_DID,
      verificationMethod: [
        { id: "#key-1", publicKeyJwk: ed25519PublicJwk(ed) },
        { id: `${LEDGER_DID}#key-2`, publicKeyJwk: key2 },
        { id: `${LEDGER_DID}#rsa`, publicKeyJwk: { kty: "RSA" } },
      ],
      assertionMethod: ["#key-1", { id: "#embedded", publicKeyJwk: key2 }],
    };
    expect(verificationMethodsOf(document, LEDGER_DID).map((m) => m.id)).toEqual([
      `${LEDGER_DID}#key-1`,
      `${LEDGER_DID}#key-2`,
    ]);
    expect(verificationMethodsOf(document, LEDGER_DID, "assertionMethod")).toEqual([
      { id: `${LEDGER_DID}#key-1`, publicJwk: ed25519PublicJwk(ed) },
      { id: `${LEDGER_DID}#embedded`, publicJwk: key2 },
    ]);
    expect(verificationMethodsOf(document, LEDGER_DID, "authentication")).toEqual([]);
    expect(verificationMethodsOf(null, LEDGER_DID)).toEqual([]);
  });
});
