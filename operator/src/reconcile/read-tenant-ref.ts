import { isConditionTrue } from "../controller/conditions.js";
import type { CustomResource, TenantStatus } from "../resources.js";
import { zTenantSpec } from "../resources.js";
import { ReconcileError } from "./reconcile-error.js";
import type { ResourceCache } from "./reconciler.js";

/** A referenced Tenant that is not usable yet: the dependent waits (it is queued again when the Tenant changes). */
export class TenantNotUsableError extends ReconcileError {}

/** Resolves `spec.tenantRef` to a Ready Tenant with `role`, or throws TenantNotUsableError. */
export function readTenantRef(
  cache: ResourceCache,
  namespace: string,
  name: string,
  role: "issuer" | "verifier",
): { tenantId: string; tenant: CustomResource } {
  const tenant = cache.get("Tenant", namespace, name);
  if (!tenant || tenant.metadata.deletionTimestamp) {
    throw new TenantNotUsableError("TenantNotFound", `Tenant ${namespace}/${name} does not exist`, false);
  }
  const spec = zTenantSpec.safeParse(tenant.spec ?? {});
  const status = tenant.status as TenantStatus | undefined;
  if (!spec.success || !isConditionTrue(status?.conditions, "Ready") || !status?.tenantUuid) {
    throw new TenantNotUsableError("TenantNotReady", `Tenant ${namespace}/${name} is not Ready`, false);
  }
  if (!spec.data.roles[role]) {
    throw new TenantNotUsableError(
      role === "issuer" ? "TenantLacksIssuerRole" : "TenantLacksVerifierRole",
      `Tenant ${namespace}/${name} does not have the ${role} role`,
      false,
    );
  }
  return { tenantId: spec.data.tenantId, tenant };
}
