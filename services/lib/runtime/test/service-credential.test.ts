import { describe, expect, it } from "vitest";
import { createServiceCredentialSigner, createServiceCredentialVerifier } from "../src/rpc/service-credential.js";

const secret = "service-secret-service-secret-service";
const START = Date.UTC(2030, 0, 1);

/** A clock the test moves by hand. */
function manualClock() {
  let now = START;
  return { now: () => now, advanceSeconds: (seconds: number) => (now += seconds * 1000) };
}

describe("service credential signer", () => {
  it("reuses its credential until a minute before it expires, then mints a new one", async () => {
    const clock = manualClock();
    const signer = createServiceCredentialSigner({ secret, caller: "credential-issuer", now: clock.now });
    const first = await signer.credentialFor("ledger");
    clock.advanceSeconds(200);
    expect(await signer.credentialFor("ledger")).toBe(first);
    expect(await signer.credentialFor("trust-registry")).not.toBe(first);
    clock.advanceSeconds(41); // 241 s: past the renewal point (300 - 60)
    const renewed = await signer.credentialFor("ledger");
    expect(renewed).not.toBe(first);
    const verifier = createServiceCredentialVerifier({ secret, audience: "ledger", now: clock.now });
    expect(await verifier.verify(renewed)).toBe("credential-issuer");
  });

  it("shares one signing between concurrent first calls", async () => {
    const signer = createServiceCredentialSigner({ secret, caller: "verifier" });
    const tokens = await Promise.all([signer.credentialFor("ledger"), signer.credentialFor("ledger")]);
    expect(tokens[0]).toBe(tokens[1]);
  });
});

describe("service credential verifier cache", () => {
  it("remembers a verified credential and answers it again with the caller", async () => {
    const clock = manualClock();
    const signer = createServiceCredentialSigner({ secret, caller: "auth-server", now: clock.now });
    const verifier = createServiceCredentialVerifier({ secret, audience: "ledger", now: clock.now });
    const token = await signer.credentialFor("ledger");
    expect(await verifier.verify(token)).toBe("auth-server");
    expect(await verifier.verify(token)).toBe("auth-server");
    expect(verifier.cachedCredentials).toBe(1);
  });

  it("stops accepting a cached credential once it has expired (beyond the 30 s tolerance)", async () => {
    const clock = manualClock();
    const signer = createServiceCredentialSigner({ secret, caller: "auth-server", now: clock.now });
    const verifier = createServiceCredentialVerifier({ secret, audience: "ledger", now: clock.now });
    const token = await signer.credentialFor("ledger");
    await verifier.verify(token);
    clock.advanceSeconds(300 + 29);
    expect(await verifier.verify(token)).toBe("auth-server");
    clock.advanceSeconds(2);
    await expect(verifier.verify(token)).rejects.toThrow(/exp/);
    expect(verifier.cachedCredentials).toBe(0);
  });

  it("never serves a changed credential from the cache", async () => {
    const signer = createServiceCredentialSigner({ secret, caller: "holder" });
    const verifier = createServiceCredentialVerifier({ secret, audience: "ledger" });
    const token = await signer.credentialFor("ledger");
    await verifier.verify(token);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, iss: "ledger" })).toString("base64url")}.${signature}`;
    await expect(verifier.verify(forged)).rejects.toThrow(/signature/);
    const flipped = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith("AA") ? "BA" : "AA"}`;
    await expect(verifier.verify(flipped)).rejects.toThrow();
    const otherSecret = createServiceCredentialSigner({ secret: `${secret}-other`, caller: "holder" });
    await expect(verifier.verify(await otherSecret.credentialFor("ledger"))).rejects.toThrow(/signature/);
    expect(verifier.cachedCredentials).toBe(1);
  });

  it("refuses a credential for another audience and does not remember it", async () => {
    const signer = createServiceCredentialSigner({ secret, caller: "holder" });
    const verifier = createServiceCredentialVerifier({ secret, audience: "ledger" });
    await expect(verifier.verify(await signer.credentialFor("verifier"))).rejects.toThrow(/aud/);
    expect(verifier.cachedCredentials).toBe(0);
  });

  it("keeps at most cacheSize credentials", async () => {
    const verifier = createServiceCredentialVerifier({ secret, audience: "ledger", cacheSize: 3 });
    const callers = ["a", "b", "c", "d", "e"];
    for (const caller of callers) {
      const token = await createServiceCredentialSigner({ secret, caller }).credentialFor("ledger");
      expect(await verifier.verify(token)).toBe(caller);
    }
    expect(verifier.cachedCredentials).toBe(3);
  });
});
