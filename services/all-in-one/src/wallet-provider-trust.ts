import { walletProviderKid } from "@attesto/holder";
import { p256PrivateJwkFromText } from "@attesto/protocol";
import type { Env } from "./service-address.js";

const TRUSTED_KEYS = "CLIENT_ATTESTATION_TRUSTED_KEYS";

/**
 * The holder is its own wallet provider (WALLET_PROVIDER_KEY, generated into the data folder like
 * the other development secrets): the auth server trusts its public key through its usual
 * CLIENT_ATTESTATION_TRUSTED_KEYS, so the holder's authorization code flow works without setup.
 * When trusted keys are configured (either variable), they are left as they are. Unlike the demo
 * provider, this key is private to the data folder, so it is trusted on any interface.
 */
export function holderWalletProviderEnv(env: Env): Record<string, string> {
  if (env[TRUSTED_KEYS] || env[`AUTH_SERVER_${TRUSTED_KEYS}`]) return {};
  const key = env.HOLDER_WALLET_PROVIDER_KEY ?? env.WALLET_PROVIDER_KEY;
  if (!key) return {};
  let jwk: { x: string; y: string };
  try {
    jwk = p256PrivateJwkFromText(key);
  } catch {
    // The holder's configuration reports the bad key.
    return {};
  }
  const publicJwk = { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, kid: walletProviderKid, alg: "ES256" };
  return { [`AUTH_SERVER_${TRUSTED_KEYS}`]: JSON.stringify({ keys: [publicJwk] }) };
}
