export { type BoundedCache, type BoundedCacheOptions, createBoundedCache } from "./bounded-cache.js";
export {
  type CacheInvalidations,
  type CacheScope,
  type CoherentCache,
  type CoherentCacheOptions,
  cacheScopeOf,
  createCacheScope,
  createCoherentCache,
  NO_INVALIDATIONS,
} from "./coherent-cache.js";
export { createLoadingCache, type LoadingCache, type LoadingCacheOptions } from "./loading-cache.js";
