import type { KeyObject } from "node:crypto";

/** How many recent tokens are remembered: a token is redeemed within milliseconds of being minted. */
const DEFAULT_CAPACITY = 1024;

/**
 * The access tokens this process signed lately, each with the public key that verifies it.
 *
 * Where the authorization server and the credential issuer share a process (the all-in-one), the
 * issuer's verifier is handed back, moments later, the very token its own process's signer made.
 * Checking its ES256 signature again (~140 µs, the largest single cost of a credential request's
 * token check) could only succeed: the token's bytes are exactly what was signed with the private
 * half of the key the verifier holds. So the verifier asks `vouches(token, key)` first and skips
 * only that signature check; the header, `typ`, issuer, audience, expiry and claims are checked as
 * always (create-access-token-verifier.ts).
 *
 * Only a string equal to one this process signed, checked with a key equal to the signing key's
 * public half, is vouched for: a changed byte, another key under the same `kid`, or a token from
 * another process (separate services: the memory is empty there) gets the full verification. The
 * memory holds the newest `capacity` tokens (oldest out first; tokens are bearer secrets already in
 * this process's memory, and no larger a set than a second's worth of traffic).
 */
export class MintedTokens {
  private readonly tokens = new Map<string, KeyObject>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** Records a token this process just signed with the private half of `publicKey`. */
  remember(token: string, publicKey: KeyObject): void {
    this.tokens.set(token, publicKey);
    if (this.tokens.size > this.capacity) {
      const oldest = this.tokens.keys().next().value as string;
      this.tokens.delete(oldest);
    }
  }

  /** Whether this process signed exactly `token` with the private half of `publicKey`. */
  vouches(token: string, publicKey: KeyObject): boolean {
    const signedWith = this.tokens.get(token);
    return signedWith !== undefined && (signedWith === publicKey || signedWith.equals(publicKey));
  }
}

/** The process's one memory: the default of every signer and verifier built in it. */
export const mintedHere = new MintedTokens();
