/** The platform's caches, made in one place (`@attesto/protocol/cache`, which the protocol's own caches use too). */
export {
  type BoundedCache,
  type BoundedCacheOptions,
  createBoundedCache,
  createLoadingCache,
  type LoadingCache,
  type LoadingCacheOptions,
} from "@attesto/protocol/cache";
