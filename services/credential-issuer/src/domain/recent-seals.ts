import type { SecretSealer } from "./ports.js";

/**
 * A SecretSealer that remembers what it sealed last under the contexts `remembers` accepts, so the
 * first `open` of such an envelope in this process needs no AES-GCM: a pre-authorized code sealed
 * when its offer is made is opened moments later for the offer document (two AES-GCM decryptions
 * with their cipher set-up, ~1.3 % of the all-in-one's main thread in the issuance profile).
 *
 * Exact: the key is the whole envelope and its context, and an envelope only ever opens, under its
 * context, to what was sealed into it; anything else (another replica's envelope, a tampered or
 * copied one, a second open) goes to `sealer`. A remembered plaintext is handed out once and
 * forgotten; at most `size` are kept, the oldest dropped (and zeroed) first. Holding them changes
 * no threat: the process holds the key-encryption keys that open every envelope anyway.
 */
export function rememberRecentSeals(
  sealer: SecretSealer,
  options: { remembers: (context: string) => boolean; size: number },
): SecretSealer {
  const recent = new Map<string, Uint8Array>();
  const keyOf = (envelope: string, context: string) => `${context}\n${envelope}`;
  return {
    seal(plaintext, context) {
      const envelope = sealer.seal(plaintext, context);
      if (options.remembers(context)) {
        recent.set(keyOf(envelope, context), Uint8Array.from(plaintext));
        if (recent.size > options.size) {
          const [oldest, value] = recent.entries().next().value as [string, Uint8Array];
          value.fill(0);
          recent.delete(oldest);
        }
      }
      return envelope;
    },
    open(envelope, context) {
      const key = keyOf(envelope, context);
      const remembered = recent.get(key);
      if (remembered === undefined) return sealer.open(envelope, context);
      recent.delete(key);
      return remembered;
    },
  };
}
