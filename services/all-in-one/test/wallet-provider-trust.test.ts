import { generateP256Jwk } from "@attesto/protocol";
import { describe, expect, it } from "vitest";
import { holderWalletProviderEnv } from "../src/wallet-provider-trust.js";

describe("the auth server's trust in the holder's own wallet provider key", () => {
  const key = generateP256Jwk();
  const text = JSON.stringify(key);

  it("trusts the public half of the holder's WALLET_PROVIDER_KEY through CLIENT_ATTESTATION_TRUSTED_KEYS", () => {
    const env = holderWalletProviderEnv({ HOLDER_WALLET_PROVIDER_KEY: text });
    const trusted = JSON.parse(env.AUTH_SERVER_CLIENT_ATTESTATION_TRUSTED_KEYS!) as { keys: Record<string, string>[] };
    expect(trusted.keys).toEqual([
      { kty: "EC", crv: "P-256", x: key.x, y: key.y, kid: "attesto-holder-wallet-provider", alg: "ES256" },
    ]);
    expect(JSON.stringify(trusted)).not.toContain(key.d);
    expect(holderWalletProviderEnv({ WALLET_PROVIDER_KEY: text })).toEqual(env);
  });

  it("leaves configured trusted keys alone, and adds nothing without a key (or with a bad one)", () => {
    for (const configured of ["CLIENT_ATTESTATION_TRUSTED_KEYS", "AUTH_SERVER_CLIENT_ATTESTATION_TRUSTED_KEYS"]) {
      expect(holderWalletProviderEnv({ HOLDER_WALLET_PROVIDER_KEY: text, [configured]: "[]" })).toEqual({});
    }
    expect(holderWalletProviderEnv({})).toEqual({});
    expect(holderWalletProviderEnv({ HOLDER_WALLET_PROVIDER_KEY: "not a key" })).toEqual({});
  });
});
