import type { SecretSealer } from "./ports.js";

/** A sealed private JWK (an issuer key, issuer-keys.ts); the opened buffer is wiped once parsed. */
export function openSealedJwk(sealer: SecretSealer, envelope: string, context: string): Record<string, string> {
  const opened = sealer.open(envelope, context);
  try {
    return JSON.parse(new TextDecoder().decode(opened)) as Record<string, string>;
  } finally {
    opened.fill(0);
  }
}
