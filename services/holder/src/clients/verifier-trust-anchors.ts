import type { keysV1 } from "@attesto/proto";
import { type Certificate, parseBase64DerCertificate } from "@attesto/protocol";
import { createLoadingCache } from "@attesto/runtime/cache";
import type { Client } from "@connectrpc/connect";
import type { VerifierTrustAnchors } from "../domain/ports.js";

/**
 * The roots a verifier's `x5c` (x509_hash, x509_san_dns requests) must lead to: the platform's root
 * CA (KeyCustodyService.GetTrustAnchors, cached for `cacheMs`) plus VERIFIER_TRUST_ANCHORS_PEM.
 * When the trust registry cannot be asked, only the configured roots are trusted (fail closed).
 */
export function createVerifierTrustAnchors(
  keys: Client<typeof keysV1.KeyCustodyService> | undefined,
  configured: readonly Certificate[],
  options: { cacheMs: number },
): VerifierTrustAnchors {
  const cache = createLoadingCache<Certificate[]>({ max: 1, ttlMs: options.cacheMs });
  const platform = async (): Promise<Certificate[]> => {
    if (!keys) return [];
    const response = await keys.getTrustAnchors({});
    return response.certificates.flatMap((certificate) => {
      try {
        return [parseBase64DerCertificate(certificate)];
      } catch {
        return [];
      }
    });
  };
  return {
    async anchors() {
      const fromPlatform = await cache.get("platform", platform).catch(() => []);
      return [...fromPlatform, ...configured];
    },
  };
}
