import { tenantV1 } from "@attesto/proto";
import { type Certificate, parseBase64DerCertificate } from "@attesto/protocol";
import { type CacheInvalidations, createCoherentCache, NO_INVALIDATIONS } from "@attesto/runtime/cache";
import { TRUST_REGISTRY_TOPICS } from "@attesto/tenant-client";
import type { Client } from "@connectrpc/connect";
import type { RegisteredIssuers } from "../domain/ports.js";
import { type IssuerStanding, type RegisteredIssuerSnapshot, UpstreamUnavailableError } from "../domain/upstream.js";

const STANDING_OF_WIRE: Partial<Record<tenantV1.IssuerStanding, IssuerStanding>> = {
  [tenantV1.IssuerStanding.ACTIVE]: "active",
  [tenantV1.IssuerStanding.DEACTIVATED]: "deactivated",
  [tenantV1.IssuerStanding.UNKNOWN]: "unknown",
};

function toSnapshot(response: tenantV1.ListRegisteredIssuersResponse): RegisteredIssuerSnapshot {
  return {
    issuerUrls: new Set(response.issuers.map((issuer) => issuer.issuerUrl)),
    dids: new Set(response.issuers.flatMap((issuer) => issuer.dids)),
    x509Roots: response.x509Roots.flatMap((der): Certificate[] => {
      try {
        return [parseBase64DerCertificate(der)];
      } catch {
        return [];
      }
    }),
  };
}

/** Issuers whose standing is remembered at once (the least recently used goes first). */
const CACHED_STANDINGS = 1_000;

/**
 * The platform's registered issuers (TenantService.ListRegisteredIssuers), cached for `cacheMs`.
 * A lookup the cached list does not satisfy asks again (joining a request already under way), so an
 * issuer registered a moment ago is found; a trust registry that cannot answer is
 * UpstreamUnavailableError (callers fail closed). An issuer's standing (GetIssuerStanding) is kept
 * in a coherent cache that every committed change of the trust registry's tenants or DIDs empties
 * before the next read on every replica. Guarantee kept: an issuer tenant deactivated through any
 * replica fails `issuer_trust` on the very next presentation.
 */
export function createRegisteredIssuers(
  tenants: Client<typeof tenantV1.TenantService>,
  options: { cacheMs: number; now?: () => number; invalidations?: CacheInvalidations },
): RegisteredIssuers {
  const now = options.now ?? Date.now;
  const standings = createCoherentCache<IssuerStanding>({
    invalidations: options.invalidations ?? NO_INVALIDATIONS,
    topics: [TRUST_REGISTRY_TOPICS.tenants, TRUST_REGISTRY_TOPICS.dids],
    max: CACHED_STANDINGS,
  });
  let cached: { snapshot: RegisteredIssuerSnapshot; until: number } | undefined;
  let inFlight: Promise<RegisteredIssuerSnapshot> | undefined;
  const refresh = () => {
    inFlight ??= tenants
      .listRegisteredIssuers({})
      .then(
        (response) => {
          const snapshot = toSnapshot(response);
          cached = { snapshot, until: now() + options.cacheMs };
          return snapshot;
        },
        (error: unknown) => {
          throw new UpstreamUnavailableError("trust registry ListRegisteredIssuers failed", { cause: error });
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
  return {
    async snapshot(isKnown) {
      if (cached && now() < cached.until && (!isKnown || isKnown(cached.snapshot))) return cached.snapshot;
      return refresh();
    },
    standingOf: ({ iss, did }, scope) =>
      standings.get(
        `${iss}\n${did ?? ""}`,
        async () => {
          let response: tenantV1.GetIssuerStandingResponse;
          try {
            response = await tenants.getIssuerStanding({ iss, did: did ?? "" });
          } catch (error) {
            throw new UpstreamUnavailableError("trust registry GetIssuerStanding failed", { cause: error });
          }
          return STANDING_OF_WIRE[response.standing] ?? "unknown";
        },
        scope,
      ),
  };
}
