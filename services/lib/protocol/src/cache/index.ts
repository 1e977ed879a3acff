export { type BoundedCache, type BoundedCacheOptions, createBoundedCache } from "./bounded-cache.js";
export { createLoadingCache, type LoadingCache, type LoadingCacheOptions } from "./loading-cache.js";
