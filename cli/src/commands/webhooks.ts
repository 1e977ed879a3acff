import { readFileSync } from "node:fs";
import type { tenantV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import { readResources } from "../control-plane.js";
import { type CommandIo, UsageError } from "./io.js";

/** The Tenant resource of the local control plane that declares `tenant`, if any. */
function declaringTenant(dataDir: string, tenant: string) {
  return readResources(dataDir).find(
    (resource) => resource.kind === "Tenant" && (resource.spec as { tenantId?: unknown })?.tenantId === tenant,
  );
}

/** `attesto webhooks list <tenant>`: one line per endpoint, `<url>\t<events or *>`. */
export async function runWebhooksList(
  tenant: string,
  tenants: Client<typeof tenantV1.TenantService>,
  io: CommandIo,
): Promise<number> {
  const { webhooks } = await tenants.getWebhooks({ tenant });
  if (webhooks.length === 0) io.err(`tenant ${tenant} has no webhooks`);
  for (const webhook of webhooks) io.out(`${webhook.url}\t${webhook.events.join(",") || "*"}`);
  return 0;
}

/**
 * `attesto webhooks set <tenant> --url URL [--events a,b] ... [--secret-file F]`: replaces the
 * tenant's endpoints (each `--events` applies to the `--url` before it). A tenant declared as a
 * Tenant resource is refused: its webhooks are `spec.webhooks`, and the next apply would undo this.
 */
export async function runWebhooksSet(
  args: { tenant: string; endpoints: Array<{ url: string; events: string[] }>; secretFile?: string; dataDir: string },
  tenants: Client<typeof tenantV1.TenantService>,
  io: CommandIo,
): Promise<number> {
  const declared = declaringTenant(args.dataDir, args.tenant);
  if (declared) {
    throw new UsageError(
      `tenant ${args.tenant} is declared by Tenant ${declared.metadata.namespace}/${declared.metadata.name}: change its spec.webhooks and run attesto apply`,
    );
  }
  const secret = args.secretFile ? readFileSync(args.secretFile, "utf8").trim() : "";
  const { generatedSecret } = await tenants.setWebhooks({ tenant: args.tenant, webhooks: args.endpoints, secret });
  io.err(`tenant ${args.tenant}: ${args.endpoints.length} webhook endpoint(s) set`);
  if (generatedSecret) {
    io.err(`webhook signing secret of tenant ${args.tenant} (shown once; store it now):`);
    io.out(generatedSecret);
  }
  return 0;
}
