import type { tenantV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import type { CommandIo } from "./io.js";

/**
 * `attesto tenants approve <tenant>`: TenantService.ApproveTenant admits a tenant that applied
 * through `POST /v1/apply` while `TENANT_ADMISSION=approval`; its API key works from then on.
 * Approving an approved tenant changes nothing.
 */
export async function runTenantsApprove(
  args: { tenant: string },
  tenants: Client<typeof tenantV1.TenantService>,
  io: CommandIo,
): Promise<number> {
  const { approved } = await tenants.approveTenant({ tenant: args.tenant });
  io.out(approved ? `tenant ${args.tenant} approved` : `tenant ${args.tenant} was already approved`);
  return 0;
}
