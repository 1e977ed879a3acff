import { describe, expect, it } from "vitest";
import { createServiceCredentialSigner, createServiceCredentialVerifier } from "../src/rpc/service-credential.js";
import {
  generateServiceIdentities,
  generateServiceIdentityKey,
  parseServiceIdentityPublicKeys,
  type ServiceIdentity,
  serviceIdentityPublicKeys,
} from "../src/rpc/service-identity.js";

const identities = generateServiceIdentities();
const publicKeys = identities.publicKeys;
const signerOf = (caller: ServiceIdentity, now?: () => number) =>
  createServiceCredentialSigner({ privateKey: identities.privateKeys[caller], caller, now });
const verifierOf = (audience: string, options: { now?: () => number; cacheSize?: number } = {}) =>
  createServiceCredentialVerifier({ publicKeys, audience, ...options });
const START = Date.UTC(2030, 0, 1);

/** A clock the test moves by hand. */
function manualClock() {
  let now = START;
  return { now: () => now, advanceSeconds: (seconds: number) => (now += seconds * 1000) };
}

describe("service credential signer", () => {
  it("reuses its credential until a minute before it expires, then mints a new one", async () => {
    const clock = manualClock();
    const signer = signerOf("credential-issuer", clock.now);
    const first = await signer.credentialFor("ledger");
    clock.advanceSeconds(200);
    expect(await signer.credentialFor("ledger")).toBe(first);
    expect(await signer.credentialFor("trust-registry")).not.toBe(first);
    clock.advanceSeconds(41); // 241 s: past the renewal point (300 - 60)
    const renewed = await signer.credentialFor("ledger");
    expect(renewed).not.toBe(first);
    const verifier = verifierOf("ledger", { now: clock.now });
    expect(await verifier.verify(renewed)).toBe("credential-issuer");
  });

  it("shares one signing between concurrent first calls", async () => {
    const signer = signerOf("verifier");
    const tokens = await Promise.all([signer.credentialFor("ledger"), signer.credentialFor("ledger")]);
    expect(tokens[0]).toBe(tokens[1]);
  });
});

describe("service credential verifier cache", () => {
  it("remembers a verified credential and answers it again with the caller", async () => {
    const clock = manualClock();
    const signer = signerOf("auth-server", clock.now);
    const verifier = verifierOf("ledger", { now: clock.now });
    const token = await signer.credentialFor("ledger");
    expect(await verifier.verify(token)).toBe("auth-server");
    expect(await verifier.verify(token)).toBe("auth-server");
    expect(verifier.cachedCredentials).toBe(1);
  });

  it("stops accepting a cached credential once it has expired (beyond the 30 s tolerance)", async () => {
    const clock = manualClock();
    const signer = signerOf("auth-server", clock.now);
    const verifier = verifierOf("ledger", { now: clock.now });
    const token = await signer.credentialFor("ledger");
    await verifier.verify(token);
    clock.advanceSeconds(300 + 29);
    expect(await verifier.verify(token)).toBe("auth-server");
    clock.advanceSeconds(2);
    await expect(verifier.verify(token)).rejects.toThrow(/exp/);
    expect(verifier.cachedCredentials).toBe(0);
  });

  it("never serves a changed credential from the cache", async () => {
    const signer = signerOf("holder");
    const verifier = verifierOf("ledger");
    const token = await signer.credentialFor("ledger");
    await verifier.verify(token);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, iss: "ledger" })).toString("base64url")}.${signature}`;
    await expect(verifier.verify(forged)).rejects.toThrow(/signature/);
    const flipped = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith("AA") ? "BA" : "AA"}`;
    await expect(verifier.verify(flipped)).rejects.toThrow();
    const otherKey = createServiceCredentialSigner({ privateKey: generateServiceIdentityKey(), caller: "holder" });
    await expect(verifier.verify(await otherKey.credentialFor("ledger"))).rejects.toThrow(/signature/);
    expect(verifier.cachedCredentials).toBe(1);
  });

  it("refuses a credential for another audience and does not remember it", async () => {
    const signer = signerOf("holder");
    const verifier = verifierOf("ledger");
    await expect(verifier.verify(await signer.credentialFor("verifier"))).rejects.toThrow(/aud/);
    expect(verifier.cachedCredentials).toBe(0);
  });

  it("keeps at most cacheSize credentials", async () => {
    const verifier = verifierOf("ledger", { cacheSize: 3 });
    const callers = ["auth-server", "holder", "verifier", "scheduler", "operator"] as const;
    for (const caller of callers) {
      const token = await signerOf(caller).credentialFor("ledger");
      expect(await verifier.verify(token)).toBe(caller);
    }
    expect(verifier.cachedCredentials).toBe(3);
  });
});

describe("service identities", () => {
  it("lets no identity speak as another: its own key under another's name is refused", async () => {
    const verifier = verifierOf("trust-registry");
    // The holder signs with its own key but claims to be the operator (kid and iss).
    const impostor = createServiceCredentialSigner({ privateKey: identities.privateKeys.holder, caller: "operator" });
    await expect(verifier.verify(await impostor.credentialFor("trust-registry"))).rejects.toThrow(/signature/);
    // Header kid names the holder (whose key signed) but the claims name the operator.
    const token = await signerOf("holder").credentialFor("trust-registry");
    const [header, payload] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const { SignJWT } = await import("jose");
    const { parseServiceIdentityKey } = await import("../src/rpc/service-identity.js");
    const mixed = await new SignJWT({ ...claims, iss: "operator" })
      .setProtectedHeader(JSON.parse(Buffer.from(header, "base64url").toString("utf8")))
      .sign(parseServiceIdentityKey(identities.privateKeys.holder));
    await expect(verifier.verify(mixed)).rejects.toThrow(/iss/);
    expect(verifier.cachedCredentials).toBe(0);
  });

  it("refuses an identity the public key set does not name, and HS256 under a public key", async () => {
    const onlyHolder = createServiceCredentialVerifier({
      publicKeys: serviceIdentityPublicKeys({ holder: identities.privateKeys.holder }),
      audience: "ledger",
    });
    await expect(onlyHolder.verify(await signerOf("scheduler").credentialFor("ledger"))).rejects.toThrow();
    expect(await onlyHolder.verify(await signerOf("holder").credentialFor("ledger"))).toBe("holder");
    const { SignJWT } = await import("jose");
    const x = parseServiceIdentityPublicKeys(publicKeys).keys.find((k) => k.kid === "operator")?.x as string;
    const confused = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "attesto-service+jwt", kid: "operator" })
      .setIssuer("operator")
      .setAudience("ledger")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(x));
    await expect(verifierOf("ledger").verify(confused)).rejects.toThrow();
  });

  it("keeps accepting an identity's old key while it has two (key replacement)", async () => {
    const next = generateServiceIdentityKey();
    const both = JSON.stringify({
      keys: [
        ...parseServiceIdentityPublicKeys(publicKeys).keys,
        ...parseServiceIdentityPublicKeys(serviceIdentityPublicKeys({ holder: next })).keys,
      ],
    });
    const verifier = createServiceCredentialVerifier({ publicKeys: both, audience: "ledger" });
    const renewed = createServiceCredentialSigner({ privateKey: next, caller: "holder" });
    expect(await verifier.verify(await renewed.credentialFor("ledger"))).toBe("holder");
    expect(await verifier.verify(await signerOf("holder").credentialFor("ledger"))).toBe("holder");
  });

  it("refuses malformed key material with a message naming the fault", () => {
    expect(() => parseServiceIdentityPublicKeys("{}")).toThrow(/JWK Set/);
    expect(() =>
      parseServiceIdentityPublicKeys(JSON.stringify({ keys: [JSON.parse(identities.privateKeys.holder)] })),
    ).toThrow(/private key|kid/);
    const withPrivate = { keys: [{ ...JSON.parse(identities.privateKeys.holder), kid: "holder" }] };
    expect(() => parseServiceIdentityPublicKeys(JSON.stringify(withPrivate))).toThrow(/private key/);
    const unknownKid = { keys: [{ ...parseServiceIdentityPublicKeys(publicKeys).keys[0], kid: "mallory" }] };
    expect(() => parseServiceIdentityPublicKeys(JSON.stringify(unknownKid))).toThrow(/kid naming an identity/);
    expect(() => createServiceCredentialSigner({ privateKey: "nope", caller: "holder" })).toThrow(/JSON/);
  });
});
