import type { keysV1 } from "@attesto/proto";
import { type Certificate, parseBase64DerCertificate } from "@attesto/protocol";
import type { Client } from "@connectrpc/connect";
import type { TrustAnchorSource } from "../domain/ports.js";

/** After a failed attempt, the trust registry is asked again no sooner than this. */
const RETRY_AFTER_FAILURE_MS = 5_000;

/**
 * Trust anchors for x5c chains: KeyCustodyService.GetTrustAnchors (cached for `cacheMs`: root CAs
 * change rarely) plus the configured
 * roots. When the trust registry cannot be reached, the last anchors it gave (or none) are used
 * with `unavailable` set.
 */
export function createTrustAnchorSource(
  keys: Client<typeof keysV1.KeyCustodyService>,
  configured: Certificate[],
  options: { cacheMs: number; now?: () => number },
): TrustAnchorSource {
  const now = options.now ?? Date.now;
  let platform: Certificate[] = [];
  let refreshAt = 0;
  let lastFailed = false;
  return {
    async anchors() {
      if (now() >= refreshAt) {
        try {
          const response = await keys.getTrustAnchors({});
          platform = response.certificates.flatMap((certificate) => {
            try {
              return [parseBase64DerCertificate(certificate)];
            } catch {
              return [];
            }
          });
          refreshAt = now() + options.cacheMs;
          lastFailed = false;
        } catch {
          refreshAt = now() + Math.min(RETRY_AFTER_FAILURE_MS, options.cacheMs);
          lastFailed = true;
        }
      }
      return { certificates: [...platform, ...configured], unavailable: lastFailed, configured };
    },
  };
}
