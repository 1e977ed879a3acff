import type { tenantV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import type { CommandIo } from "./io.js";
import { revealTo } from "./reveal.js";

/**
 * `attesto apikey rotate <tenant> [--api-key-dir DIR]`: TenantService.ReplaceApiKey revokes every
 * key of the tenant and returns a new one, handed over once (DIR/<tenant>.key, else stdout).
 */
export async function runApiKeyRotate(
  args: { tenant: string; apiKeyDir?: string },
  tenants: Client<typeof tenantV1.TenantService>,
  io: CommandIo,
): Promise<number> {
  const { apiKey } = await tenants.replaceApiKey({ tenant: args.tenant });
  revealTo(io, args.apiKeyDir)({ tenantId: args.tenant, key: "api-key", value: apiKey });
  io.err(`every earlier API key of tenant ${args.tenant} is revoked`);
  return 0;
}
