import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { schemaV1, tenantV1 } from "@attesto/proto";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import { ManifestError } from "../manifests/read-manifests.js";
import type { CommandIo } from "./io.js";

/** What the registry answered, in the words `attesto apply` uses. */
const ACTION = { created: "created", updated: "configured", unchanged: "unchanged" } as const;

/** The JSON files named by `-f`: a file as given, a directory's `*.json` (recursively, sorted). */
export function credentialTypeFiles(paths: readonly string[], cwd = process.cwd()): string[] {
  const files: string[] = [];
  const visit = (path: string, named: boolean) => {
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(path);
    } catch {
      throw new ManifestError(`${path}: no such file or directory`);
    }
    if (stats.isDirectory()) {
      for (const entry of readdirSync(path).sort()) visit(join(path, entry), false);
    } else if (named || path.endsWith(".json")) {
      files.push(path);
    }
  };
  for (const path of paths) visit(resolve(cwd, path), true);
  if (files.length === 0) throw new ManifestError(`no *.json file in ${paths.join(", ")}`);
  return files;
}

/** Reads every file and checks that it is JSON before anything is sent. */
function readDefinitions(files: readonly string[]): Array<{ file: string; text: string }> {
  return files.map((file) => {
    const text = readFileSync(file, "utf8");
    try {
      JSON.parse(text);
    } catch (error) {
      throw new ManifestError(`${file}: not valid JSON (${(error as Error).message})`);
    }
    return { file, text };
  });
}

/**
 * `attesto types list [--format F]`: the schema registry's credential types, one tab-separated row
 * each: type, version, format (`dc+sd-jwt` or `mso_mdoc`), status, and what a credential names it by
 * (an mdoc's doctype, an SD-JWT VC's vct). Exit 0; none: a line on stderr.
 */
export async function runTypesList(
  args: { format?: string | undefined },
  schemas: Client<typeof schemaV1.SchemaService>,
  io: CommandIo,
): Promise<number> {
  const { credentialTypes } = await schemas.listCredentialTypes({});
  const listed = credentialTypes.filter((type) => !args.format || type.format === args.format);
  if (listed.length === 0) {
    io.err(args.format ? `no credential types of format ${args.format}` : "no credential types");
    return 0;
  }
  for (const type of listed) {
    const name = type.format === "mso_mdoc" ? type.doctype : type.vct;
    io.out([type.type, type.version, type.format, type.status, name].join("\t"));
  }
  return 0;
}

/**
 * `attesto types add -f <type.json|dir>`: registers each credential type with the schema registry
 * (SchemaService.PutCredentialType), then gives every tenant a credential configuration for it
 * (TenantService.ProvisionCredentialTypes), so tenants can issue it at once, without a restart.
 * One line per type: `credentialtype/<type>/<version> created|configured|unchanged <vct>`.
 * Exit codes: 0 done, 1 refused (a version's schema cannot change), 2 an invalid file (every
 * problem listed, one `field: message` per line; types before it in the list are registered).
 */
export async function runTypesAdd(
  args: { files: readonly string[] },
  clients: { schemas: Client<typeof schemaV1.SchemaService>; tenants: Client<typeof tenantV1.TenantService> },
  io: CommandIo,
): Promise<number> {
  const definitions = readDefinitions(credentialTypeFiles(args.files));
  let registered = 0;
  let exitCode = 0;
  for (const { file, text } of definitions) {
    try {
      const { outcome, credentialType } = await clients.schemas.putCredentialType({ definitionJson: text });
      const action = ACTION[outcome as keyof typeof ACTION] ?? outcome;
      io.out(`credentialtype/${credentialType?.type}/${credentialType?.version} ${action} ${credentialType?.vct}`);
      registered++;
    } catch (error) {
      const refused = ConnectError.from(error);
      if (refused.code !== Code.InvalidArgument && refused.code !== Code.AlreadyExists) throw error;
      io.err(`attesto: ${file}: ${refused.rawMessage}`);
      exitCode = refused.code === Code.InvalidArgument ? 2 : 1;
      break;
    }
  }
  // The types registered so far are provisioned even when a later file failed.
  if (registered > 0) {
    const { configurationsAdded } = await clients.tenants.provisionCredentialTypes({});
    io.out(`${configurationsAdded} credential configuration(s) added to tenants`);
  }
  return exitCode;
}
