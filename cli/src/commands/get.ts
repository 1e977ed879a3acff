import { type CustomResource, findCondition, RESOURCE_KINDS, type ResourceKind } from "@attesto/operator/library";
import { stringify } from "yaml";
import { readResources } from "../control-plane.js";
import { type CommandIo, UsageError } from "./io.js";

/** Accepted spellings of each kind, as kubectl accepts them. */
const KIND_NAMES: Record<string, ResourceKind> = {};
for (const [kind, { plural }] of Object.entries(RESOURCE_KINDS) as Array<[ResourceKind, { plural: string }]>) {
  for (const name of [kind.toLowerCase(), plural]) KIND_NAMES[name] = kind;
}

export function kindOf(name: string): ResourceKind {
  const kind = KIND_NAMES[name.toLowerCase()];
  if (!kind) throw new UsageError(`unknown resource type ${name}: use tenants, issuers or verifierpolicies`);
  return kind;
}

const tenantIdOf = (resource: CustomResource) =>
  resource.kind === "Tenant"
    ? String((resource.spec as { tenantId?: unknown } | undefined)?.tenantId ?? "")
    : String((resource.status as { tenantId?: unknown } | undefined)?.tenantId ?? "");

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("   ")
      .trimEnd(),
  );
}

/**
 * `attesto get <kind> [name] [-o json|yaml]`: the resources of the local control plane with the
 * status the reconcilers wrote (the operator's status fields and conditions).
 */
export function runGet(args: { kind: string; name?: string; output?: string; dataDir: string }, io: CommandIo): number {
  const kind = kindOf(args.kind);
  if (args.output && args.output !== "json" && args.output !== "yaml") {
    throw new UsageError(`-o must be json or yaml, not ${args.output}`);
  }
  const resources = readResources(args.dataDir).filter(
    (resource) => resource.kind === kind && (!args.name || resource.metadata.name === args.name),
  );
  if (args.name && resources.length === 0) {
    io.err(`${kind} ${args.name} not found`);
    return 1;
  }
  if (args.output) {
    const document = args.name ? resources[0] : { apiVersion: "v1", kind: "List", items: resources };
    io.out(args.output === "json" ? JSON.stringify(document, null, 2) : stringify(document).trimEnd());
    return 0;
  }
  if (resources.length === 0) {
    io.err(`no ${RESOURCE_KINDS[kind].plural}`);
    return 0;
  }
  const rows = [["NAME", "NAMESPACE", "TENANT", "READY", "REASON"]];
  for (const resource of resources) {
    const ready = findCondition(resource.status?.conditions, "Ready");
    rows.push([
      resource.metadata.name,
      resource.metadata.namespace,
      tenantIdOf(resource),
      resource.metadata.deletionTimestamp ? "Deleting" : (ready?.status ?? "Unknown"),
      ready?.reason ?? "",
    ]);
  }
  for (const line of table(rows)) io.out(line);
  return 0;
}
