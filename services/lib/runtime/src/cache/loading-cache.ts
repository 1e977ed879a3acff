/** The platform's caches, made in one place (`@attesto/protocol/cache`, which the protocol's own caches use too). */
export {
  type BoundedCache,
  type BoundedCacheOptions,
  type CacheInvalidations,
  type CoherentCache,
  type CoherentCacheOptions,
  createBoundedCache,
  createCoherentCache,
  createLoadingCache,
  type LoadingCache,
  type LoadingCacheOptions,
  NO_INVALIDATIONS,
} from "@attesto/protocol/cache";
