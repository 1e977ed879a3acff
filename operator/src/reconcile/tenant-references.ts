import { type CustomResource, objectKey, type ResourceKind } from "../resources.js";
import type { ResourceCache } from "./reconciler.js";

/** The kinds that name a Tenant in `spec.tenantRef` (same namespace). */
export const TENANT_REFERRING_KINDS = ["Issuer", "VerifierPolicy"] as const satisfies readonly ResourceKind[];

/** The Tenant name in a resource's `spec.tenantRef` (unchecked spec). */
export const tenantRefNameOf = (resource: CustomResource) =>
  (resource.spec as { tenantRef?: { name?: unknown } } | undefined)?.tenantRef?.name;

/** Issuers and VerifierPolicies (still existing, deleting or not) whose tenantRef names this Tenant. */
export function resourcesReferringTo(tenant: CustomResource, cache: ResourceCache): string[] {
  return TENANT_REFERRING_KINDS.flatMap((kind) =>
    cache
      .list(kind)
      .filter(
        (other) =>
          other.metadata.namespace === tenant.metadata.namespace && tenantRefNameOf(other) === tenant.metadata.name,
      )
      .map((other) => objectKey(kind, other.metadata)),
  );
}

/**
 * `dependents` of an Issuer or VerifierPolicy: its Tenant when that Tenant is being deleted, so that
 * the Tenant's finalizer (waiting for its referrers to go) runs again when this resource changes or goes.
 */
export function tenantAwaitingCleanup(resource: CustomResource, cache: ResourceCache): string[] {
  const name = tenantRefNameOf(resource);
  if (typeof name !== "string") return [];
  const tenant = cache.get("Tenant", resource.metadata.namespace, name);
  return tenant?.metadata.deletionTimestamp ? [objectKey("Tenant", tenant.metadata)] : [];
}
