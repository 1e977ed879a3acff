import { badRequest } from "@attesto/runtime/errors";

/**
 * Owner of the generated CA's keys. The colon cannot occur in a tenant name, and custody refuses
 * it from callers, so no caller can ever sign with the platform's CA keys.
 */
export const PLATFORM_TENANT = "platform:ca";

/** A tenant a caller may act for: non-empty and not the reserved platform owner. */
export function assertCallerTenant(tenant: string): string {
  if (typeof tenant !== "string" || tenant.length === 0) throw badRequest("tenant is required");
  if (tenant === PLATFORM_TENANT) throw badRequest(`tenant '${PLATFORM_TENANT}' is reserved`);
  return tenant;
}
