/** The platform's caches, made in one place (`@attesto/protocol/cache`, which the protocol's own caches use too). */
export {
  type BoundedCache,
  type BoundedCacheOptions,
  type CacheInvalidations,
  type CacheScope,
  type CoherentCache,
  type CoherentCacheOptions,
  cacheScopeOf,
  createBoundedCache,
  createCacheScope,
  createCoherentCache,
  createLoadingCache,
  type LoadingCache,
  type LoadingCacheOptions,
  NO_INVALIDATIONS,
} from "@attesto/protocol/cache";
