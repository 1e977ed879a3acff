import { createLoadingCache } from "@attesto/runtime/cache";
import type { FastifyBaseLogger } from "fastify";
import type { CredentialDisplay, IssuerDisplay } from "../domain/authorization/issuer-display.js";
import type { ClaimLabel } from "../domain/authorization/offered-claims.js";
import type { IssuerDisplaySource } from "../domain/ports.js";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const stringOf = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** The entry of a display array for English (or without locale), else the first one. */
function preferredDisplay(value: unknown): Json | undefined {
  const entries = Array.isArray(value) ? value.filter(isObject) : [];
  return (
    entries.find((entry) => {
      const locale = stringOf(entry.locale);
      return locale === undefined || locale.toLowerCase().startsWith("en");
    }) ?? entries[0]
  );
}

function claimLabelsOf(claims: unknown): ClaimLabel[] {
  if (!Array.isArray(claims)) return [];
  return claims.filter(isObject).flatMap((claim) => {
    const label = stringOf(preferredDisplay(claim.display)?.name);
    const path = Array.isArray(claim.path) ? claim.path : [];
    const keys = path.filter((part): part is string => typeof part === "string");
    // Paths through arrays (null, indices) name no object key the offer's paths can match.
    return label && keys.length > 0 && keys.length === path.length ? [{ path: keys, label }] : [];
  });
}

/** OID4VCI 1.0 issuer metadata -> what the consent page shows (names, descriptions, claim labels). */
export function issuerDisplayOf(metadata: unknown): IssuerDisplay {
  const document = isObject(metadata) ? metadata : {};
  const configurations: Record<string, CredentialDisplay> = {};
  const supported = isObject(document.credential_configurations_supported)
    ? document.credential_configurations_supported
    : {};
  for (const [id, configuration] of Object.entries(supported)) {
    if (!isObject(configuration)) continue;
    const credentialMetadata = isObject(configuration.credential_metadata) ? configuration.credential_metadata : {};
    const display = preferredDisplay(credentialMetadata.display) ?? preferredDisplay(configuration.display);
    configurations[id] = {
      name: stringOf(display?.name),
      description: stringOf(display?.description),
      claims: claimLabelsOf(credentialMetadata.claims ?? configuration.claims),
    };
  }
  return { name: stringOf(preferredDisplay(document.display)?.name), configurations };
}

/** Metadata is cached this long per tenant (it changes when the tenant's schemas do). */
const CACHE_TTL_MS = 60_000;
/** Tenants whose display is remembered at once (the least recently used goes first). */
const CACHED_ISSUERS = 1_000;

/**
 * The credential issuer's public metadata (`<CREDENTIAL_ISSUER_URL>/.well-known/openid-credential-issuer/<tenant>`),
 * fetched with a timeout and cached briefly. Unavailable metadata is not an error: the consent
 * page then shows identifiers.
 */
export function createIssuerDisplayClient(options: {
  credentialIssuerUrl: string;
  timeoutMs: number;
  logger?: FastifyBaseLogger;
  fetch?: typeof fetch;
  now?: () => number;
}): IssuerDisplaySource {
  const fetchImpl = options.fetch ?? fetch;
  const cache = createLoadingCache<IssuerDisplay>({ max: CACHED_ISSUERS, ttlMs: CACHE_TTL_MS, now: options.now });
  const load = async (tenant: string): Promise<IssuerDisplay> => {
    const url = `${options.credentialIssuerUrl}/.well-known/openid-credential-issuer/${encodeURIComponent(tenant)}`;
    const response = await fetchImpl(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return issuerDisplayOf(await response.json());
  };
  return {
    async describe(tenant) {
      try {
        return await cache.get(tenant, () => load(tenant));
      } catch (error) {
        options.logger?.warn({ err: error, tenant }, "credential issuer metadata unavailable for the consent page");
        return undefined;
      }
    },
  };
}
