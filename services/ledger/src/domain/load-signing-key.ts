import {
  decodeEd25519Seed,
  type Ed25519PrivateJwk,
  ed25519JwkFromSeed,
  ed25519PublicJwk,
  generateEd25519Jwk,
} from "@attesto/protocol";
import type { LedgerKeyRepository } from "./ports.js";

/**
 * The checkpoint-signing key: the configured seed when there is one (it wins and is not stored),
 * else the key kept in the database, generated and stored on first start. Replicas starting
 * together agree on one key because the first stored key wins.
 */
export async function loadSigningKey(
  keys: LedgerKeyRepository,
  configuredSeed: string | undefined,
  generate: () => Ed25519PrivateJwk = generateEd25519Jwk,
): Promise<Ed25519PrivateJwk> {
  if (configuredSeed) return ed25519JwkFromSeed(decodeEd25519Seed(configuredSeed));
  const fresh = generate();
  const stored = await keys.insertIfAbsent({
    purpose: "checkpoint-signing",
    privateJwk: fresh,
    publicJwk: ed25519PublicJwk(fresh),
  });
  return stored.privateJwk;
}
