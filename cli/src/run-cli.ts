import { parseArgs } from "node:util";
import { Code, ConnectError } from "@connectrpc/connect";
import { helpFor } from "./command-help.js";
import { runApiKeyRotate } from "./commands/apikey.js";
import { runApply, runDelete } from "./commands/apply.js";
import { runBackup, runRestore } from "./commands/backup.js";
import { runDeadLetters } from "./commands/dead-letters.js";
import { runGet } from "./commands/get.js";
import { type CommandIo, UsageError } from "./commands/io.js";
import { runNotarizationShow } from "./commands/notarization-show.js";
import { runNotarizationVerify } from "./commands/notarization-verify.js";
import { revealTo } from "./commands/reveal.js";
import { runTenantsApprove } from "./commands/tenants.js";
import { runTypesAdd, runTypesList } from "./commands/types.js";
import { runWebhooksList, runWebhooksSet } from "./commands/webhooks.js";
import {
  assertReachable,
  type CliTarget,
  ConnectionSetupError,
  connect,
  dataDirOf,
  type Env,
  PlatformUnreachableError,
  resolveConnection,
} from "./connection.js";
import { ManifestError } from "./manifests/read-manifests.js";
import { ManifestValidationError } from "./manifests/validate-manifest.js";

export const USAGE = `usage: attesto <command> [options]

  apply -f <file|dir> [-f ...] [--api-key-dir DIR]   create or update Tenants, Issuers, VerifierPolicies (and Secrets)
  delete -f <file|dir> [-f ...]                      delete them (finalizers first, as the operator does)
  get tenants|issuers|verifierpolicies [NAME] [-o json|yaml]
  webhooks list <tenant>
  webhooks set <tenant> --url URL [--events a,b] [--url URL ...] [--secret-file FILE]
  apikey rotate <tenant> [--api-key-dir DIR]         revoke the tenant's API keys and issue a new one
  tenants approve <tenant>                           admit a tenant pending approval (TENANT_ADMISSION=approval)
  types add -f <type.json|dir> [-f ...]              register credential types; every tenant can issue them at once
  types list [--format dc+sd-jwt|mso_mdoc]           the credential types with their format (mdocs: doctype)
  dead-letters list [--tenant T]
  dead-letters retry [--tenant T] [<object_id> ...] [--delivery <delivery_id> ...]
  notarization show <object_id>                      an EVM anchored reference as JSON (operator), for verify
  notarization verify <reference.json|credential.json|-> --rpc-url URL [--confirmations N]
                                                     check an EVM anchored reference against the chain alone
  backup <file>                                      the embedded database and its secrets into <file> (online on native PostgreSQL)
  restore <file>                                     a backup into an empty data folder, platform stopped; then npm start

global options:
  --data-dir DIR          the platform's data folder (default .attesto, or ATTESTO_DATA_DIR)
  --credential-file FILE  the operator's identity key (default: SERVICE_IDENTITY_KEY, else DIR/secrets.json)

attesto <command> --help (or attesto help <command>) shows a command's options and examples.
exit codes: 0 done, 1 the platform refused or is unreachable (or a resource is not Ready), 2 a wrong
command line, file or setting`;

const GLOBAL_OPTIONS = {
  "data-dir": { type: "string" },
  "credential-file": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Options = Parameters<typeof parseArgs>[0] extends infer T ? (T extends { options?: infer O } ? O : never) : never;

function parse<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options: { ...GLOBAL_OPTIONS, ...options }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--url a --events x,y --url b`: each --events belongs to the --url before it. */
function webhookEndpoints(args: string[]): Array<{ url: string; events: string[] }> {
  const endpoints: Array<{ url: string; events: string[] }> = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--url") endpoints.push({ url: args[++i] ?? "", events: [] });
    else if (args[i] === "--events") {
      const last = endpoints.at(-1);
      if (!last) throw new UsageError("--events must follow a --url");
      last.events = (args[++i] ?? "")
        .split(",")
        .map((e) => e.trim())
        .filter(Boolean);
    }
  }
  return endpoints;
}

async function dispatch(argv: string[], env: Env, io: CommandIo): Promise<number> {
  const [command, ...rest] = argv;
  const settingsFor = (values: { "data-dir"?: string; "credential-file"?: string }) =>
    resolveConnection({ dataDir: values["data-dir"], credentialFile: values["credential-file"] }, env);
  const connected = async (values: { "data-dir"?: string; "credential-file"?: string }, targets: CliTarget[]) => {
    const settings = settingsFor(values);
    await assertReachable(settings, targets);
    return connect(settings);
  };

  switch (command) {
    case "apply":
    case "delete": {
      const { values, positionals } = parse(rest, {
        filename: { type: "string", short: "f", multiple: true },
        "api-key-dir": { type: "string" },
      });
      if (!values.filename?.length || positionals.length > 0) throw new UsageError(`${command} needs -f <file|dir>`);
      const connection = await connected(values, ["trust-registry", "credential-issuer", "verifier"]);
      const options = {
        dataDir: connection.settings.dataDir,
        platform: connection.platform,
        reveal: revealTo(io, values["api-key-dir"]),
      };
      return command === "apply" ? runApply(values.filename, options, io) : runDelete(values.filename, options, io);
    }
    case "get": {
      const { values, positionals } = parse(rest, { output: { type: "string", short: "o" } });
      const [kind, name, ...extra] = positionals;
      if (!kind || extra.length > 0)
        throw new UsageError("get needs a resource type: tenants, issuers or verifierpolicies");
      const dataDir = dataDirOf(values["data-dir"], env);
      return runGet({ kind, name, output: values.output, dataDir }, io);
    }
    case "webhooks": {
      const [verb, ...args] = rest;
      if (verb === "list") {
        const { values, positionals } = parse(args, {});
        if (positionals.length !== 1) throw new UsageError("webhooks list needs <tenant>");
        return runWebhooksList(positionals[0]!, (await connected(values, ["trust-registry"])).tenants, io);
      }
      if (verb === "set") {
        const { values, positionals } = parse(args, {
          url: { type: "string", multiple: true },
          events: { type: "string", multiple: true },
          "secret-file": { type: "string" },
        });
        if (positionals.length !== 1) throw new UsageError("webhooks set needs <tenant>");
        const connection = await connected(values, ["trust-registry"]);
        return runWebhooksSet(
          {
            tenant: positionals[0]!,
            endpoints: webhookEndpoints(args),
            secretFile: values["secret-file"],
            dataDir: connection.settings.dataDir,
          },
          connection.tenants,
          io,
        );
      }
      throw new UsageError("webhooks needs list or set");
    }
    case "apikey": {
      const [verb, ...args] = rest;
      const { values, positionals } = parse(args, { "api-key-dir": { type: "string" } });
      if (verb !== "rotate" || positionals.length !== 1) throw new UsageError("apikey rotate needs <tenant>");
      const connection = await connected(values, ["trust-registry"]);
      return runApiKeyRotate({ tenant: positionals[0]!, apiKeyDir: values["api-key-dir"] }, connection.tenants, io);
    }
    case "tenants": {
      const [verb, ...args] = rest;
      const { values, positionals } = parse(args, {});
      if (verb !== "approve" || positionals.length !== 1) throw new UsageError("tenants approve needs <tenant>");
      const connection = await connected(values, ["trust-registry"]);
      return runTenantsApprove({ tenant: positionals[0]! }, connection.tenants, io);
    }
    case "types": {
      const [verb, ...args] = rest;
      if (verb === "list") {
        const { values, positionals } = parse(args, { format: { type: "string" } });
        if (positionals.length > 0) throw new UsageError("types list takes no arguments");
        if (values.format !== undefined && !["dc+sd-jwt", "mso_mdoc"].includes(values.format)) {
          throw new UsageError("--format must be dc+sd-jwt or mso_mdoc");
        }
        const connection = await connected(values, ["schema-registry"]);
        return runTypesList({ format: values.format }, connection.schemas, io);
      }
      const { values, positionals } = parse(args, { filename: { type: "string", short: "f", multiple: true } });
      if (verb !== "add" || !values.filename?.length || positionals.length > 0) {
        throw new UsageError("types add needs -f <type.json|dir>");
      }
      const connection = await connected(values, ["schema-registry", "trust-registry"]);
      return runTypesAdd({ files: values.filename }, { schemas: connection.schemas, tenants: connection.tenants }, io);
    }
    case "notarization": {
      const [verb, ...args] = rest;
      if (verb === "show") {
        const { values, positionals } = parse(args, {});
        return runNotarizationShow(positionals, (await connected(values, ["scheduler"])).notary, io);
      }
      if (verb !== "verify") throw new UsageError("notarization needs show or verify");
      const { values, positionals } = parse(args, {
        "rpc-url": { type: "string" },
        confirmations: { type: "string" },
      });
      // No platform connection: the chain alone decides.
      return runNotarizationVerify(
        { positionals, rpcUrl: values["rpc-url"] ?? env.EVM_RPC_URL, confirmations: values.confirmations },
        io,
      );
    }
    case "dead-letters": {
      // Its own argument grammar (repeatable ids); only the global options are taken out here.
      const own: string[] = [];
      const global: string[] = [];
      for (let i = 0; i < rest.length; i++) {
        const arg = rest[i]!;
        if (arg === "--data-dir" || arg === "--credential-file") global.push(arg, rest[++i] ?? "");
        else own.push(arg);
      }
      const { values } = parse(global, {});
      return runDeadLetters(own, (await connected(values, ["scheduler"])).notary, io);
    }
    case "backup":
    case "restore": {
      const { values, positionals } = parse(rest, {});
      if (positionals.length !== 1) throw new UsageError(`${command} needs <file>`);
      const options = { dataDir: dataDirOf(values["data-dir"], env), file: positionals[0]! };
      return command === "backup" ? runBackup(options, io) : runRestore(options, io);
    }
    default:
      throw new UsageError(command ? `unknown command ${command}` : "no command given");
  }
}

/**
 * Runs one `attesto` command. Exit codes: 0 done, 1 the platform refused or a resource is not
 * Ready, 2 a wrong command line, file or setting.
 */
export async function runCli(argv: string[], env: Env, io: CommandIo): Promise<number> {
  if (argv.length === 0) {
    io.err(USAGE);
    return 2;
  }
  const asksHelp = argv.includes("--help") || argv.includes("-h");
  if (argv[0] === "help" || asksHelp) {
    // `attesto help <command>`, `attesto <command> [...] --help`: that command's page; else the overview.
    const command = argv[0] === "help" ? argv[1] : argv[0];
    if (command === undefined || command === "--help" || command === "-h") {
      io.out(USAGE);
      return 0;
    }
    const page = helpFor(command);
    if (page === undefined) {
      io.err(`attesto: unknown command ${command}`);
      io.err(USAGE);
      return 2;
    }
    io.out(page);
    return 0;
  }
  try {
    return await dispatch(argv, env, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`attesto: ${error.message}`);
      io.err("run `attesto help` for usage");
      return 2;
    }
    if (error instanceof ManifestValidationError) {
      io.err("attesto: nothing applied; invalid manifests:");
      for (const problem of error.problems) io.err(`  ${problem}`);
      return 2;
    }
    if (error instanceof ManifestError || error instanceof ConnectionSetupError) {
      io.err(`attesto: ${error.message}`);
      return 2;
    }
    if (error instanceof PlatformUnreachableError) {
      io.err(`attesto: ${error.message}`);
      return 1;
    }
    if (error instanceof ConnectError) {
      io.err(`attesto: the platform refused: ${error.rawMessage} (${Code[error.code]})`);
      return 1;
    }
    throw error;
  }
}
