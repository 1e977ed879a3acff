import { importPrivateJwk, jwkThumbprint } from "@attesto/protocol";
import { createBoundedCache, createLoadingCache } from "@attesto/protocol/cache";
import { unavailable } from "@attesto/runtime/errors";
import { privateKeyContext } from "./offer.js";
import { openSealedJwk } from "./offer-issuer-key.js";
import type { IssuerKeyring, IssuerPrivateKeyRepository, OfferIssuerPrivateKey, SecretSealer } from "./ports.js";

/** `issuer_private_keys.id` of a tenant's DID-path key: `<tenant>:<RFC 7638 thumbprint>`. */
export const issuerKeyId = (tenant: string, thumbprint: string) => `${tenant}:${thumbprint}`;
/** Sealing context of a row of `issuer_private_keys`. */
export const issuerKeyContext = (id: string) => `issuer-key:${id}`;

/** Distinct tenant keys kept imported, and how long an unused one stays. */
export const ISSUER_KEY_CACHE = { max: 1024, ttlMs: 10 * 60_000 } as const;

/** The public members of a private JWK (what its RFC 7638 thumbprint covers). */
function publicMembersOf(privateJwk: Record<string, string>) {
  const { kty, crv, x, y } = privateJwk;
  return kty === "EC" ? { kty, crv, x, y } : { kty, crv, x };
}

/**
 * Imported issuer keys, by `<tenant>:<thumbprint>`. A thumbprint names exactly one private key and a
 * stored key never changes, so an entry can never be stale: a rotated key has another thumbprint,
 * and offers name the key they were made with (no cross-replica invalidation is needed). Offers
 * made before migration 0010 carry their own sealed key, opened and imported per use as before.
 */
export function createIssuerKeyring(
  deps: { sealer: SecretSealer; issuerPrivateKeys: IssuerPrivateKeyRepository },
  options: { now?: () => number } = {},
): IssuerKeyring {
  const clock = options.now ? { now: options.now } : {};
  const imported = createLoadingCache<OfferIssuerPrivateKey>({ ...ISSUER_KEY_CACHE, ...clock });
  const recorded = createBoundedCache<true>({ ...ISSUER_KEY_CACHE, ...clock });
  const load = async (id: string, thumbprint: string): Promise<OfferIssuerPrivateKey> => {
    const sealed = await deps.issuerPrivateKeys.findSealed(id);
    if (sealed === undefined) throw unavailable("Issuer signing key is unavailable");
    const jwk = openSealedJwk(deps.sealer, sealed, issuerKeyContext(id));
    if (jwkThumbprint(publicMembersOf(jwk)) !== thumbprint) throw unavailable("Issuer signing key is unavailable");
    return { key: importPrivateJwk(jwk), thumbprint };
  };
  return {
    async keyOf(offer) {
      const { key } = offer.signing;
      if ("thumbprint" in key) {
        const id = issuerKeyId(offer.tenant, key.thumbprint);
        return imported.get(id, () => load(id, key.thumbprint));
      }
      const jwk = openSealedJwk(deps.sealer, key.sealedPrivateKey, privateKeyContext(offer.id));
      return { key: importPrivateJwk(jwk), thumbprint: jwkThumbprint(publicMembersOf(jwk)) };
    },
    isRecorded: (tenant, kid, thumbprint) => recorded.get(`${tenant} ${kid} ${thumbprint}`) === true,
    markRecorded: (tenant, kid, thumbprint) => recorded.set(`${tenant} ${kid} ${thumbprint}`, true),
  };
}
