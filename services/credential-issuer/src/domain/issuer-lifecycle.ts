import type { IssuerDependencies } from "./dependencies.js";

/**
 * Whether the tenant may issue now. The trust registry owns the tenant lifecycle (its README,
 * "Tenant lifecycle"); GetTenant knows active tenants only. Asked fresh every time, never from this
 * process's tenant cache: a tenant deactivated a moment ago is refused at once on every replica.
 */
export async function isIssuerActive(deps: Pick<IssuerDependencies, "tenants">, tenant: string): Promise<boolean> {
  return (await deps.tenants.find(tenant, { fresh: true })) !== undefined;
}

/** The fixed text of every refusal because the issuing tenant was deactivated. */
export const INACTIVE_ISSUER = "the credential issuer is no longer active";
