import { keysV1 } from "@attesto/proto";
import type { JwtSigner } from "@attesto/protocol";
import { createLoadingCache } from "@attesto/runtime/cache";
import { AppError } from "@attesto/runtime/errors";
import { fromRpcError } from "@attesto/runtime/rpc";
import type { Client } from "@connectrpc/connect";
import type { X509Signers } from "../domain/ports.js";

/** How long a tenant's signing certificate (key id and x5c) is reused. */
const CERTIFICATE_CACHE_TTL_MS = 5 * 60_000;
/** Tenants whose certificate is remembered at once (the least recently used goes first). */
const CACHED_CERTIFICATES = 1_000;

/**
 * The X.509 path's signers: the tenant's P-256 key in key custody (trust registry), named by the
 * `x5c` chain GetSigningCertificate returns (leaf first, trust anchor excluded). Signing happens in
 * key custody; the private key never reaches the issuer.
 */
export function createKeyCustodySigners(client: Client<typeof keysV1.KeyCustodyService>): X509Signers {
  const certificates = createLoadingCache<{ keyId: string; x5c: string[] }>({
    max: CACHED_CERTIFICATES,
    ttlMs: CERTIFICATE_CACHE_TTL_MS,
  });
  const certificateOf = (tenant: string) =>
    certificates.get(tenant, async () => {
      try {
        const response = await client.getSigningCertificate({ tenant });
        if (!response.keyId || response.x5c.length === 0) {
          throw new AppError(500, "server_error", "key custody returned no signing certificate");
        }
        return { keyId: response.keyId, x5c: response.x5c };
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw fromRpcError(error, "Key custody");
      }
    });
  return {
    async signerFor(tenant) {
      const { keyId, x5c } = await certificateOf(tenant);
      return {
        alg: "ES256",
        keyHeader: { x5c },
        async sign(signingInput) {
          try {
            const response = await client.sign({ tenant, keyId, signingInput });
            if (response.alg !== keysV1.KeyAlgorithm.ES256) {
              throw new AppError(500, "server_error", "tenant signing key is not an ES256 key");
            }
            return response.signature;
          } catch (error) {
            if (error instanceof AppError) throw error;
            throw fromRpcError(error, "Key custody");
          }
        },
      } satisfies JwtSigner;
    },
  };
}
