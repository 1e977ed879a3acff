import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createPlatformClients, OPERATOR_CALLER, type Platform } from "@attesto/operator/library";
import { notaryV1, schemaV1, type tenantV1 } from "@attesto/proto";
import {
  createRpcClient,
  createServiceCredentialSigner,
  parseServiceIdentityKey,
  type ServiceCredentialSigner,
} from "@attesto/runtime/rpc";
import type { Client } from "@connectrpc/connect";

/** The internal (Connect) services the CLI calls, by service name. */
export const CLI_TARGETS = {
  "trust-registry": { variable: "TRUST_REGISTRY_INTERNAL_URL", port: 9085 },
  "credential-issuer": { variable: "CREDENTIAL_ISSUER_INTERNAL_URL", port: 9082 },
  verifier: { variable: "VERIFIER_INTERNAL_URL", port: 9083 },
  scheduler: { variable: "SCHEDULER_INTERNAL_URL", port: 9087 },
  "schema-registry": { variable: "SCHEMA_REGISTRY_INTERNAL_URL", port: 9086 },
} as const;
export type CliTarget = keyof typeof CLI_TARGETS;

/** Written by `npm start` (the all-in-one) into the data folder: where each service listens. */
export const PLATFORM_FILE = "platform.json";
/** The all-in-one's development secrets, among them the operator's identity key. */
export const SECRETS_FILE = "secrets.json";

export type Env = Record<string, string | undefined>;

export interface ConnectionSettings {
  dataDir: string;
  urls: Record<CliTarget, string>;
  /** Where the credential came from, for error messages. */
  credentialSource: string;
  /** The operator's identity key (Ed25519 private JWK): the CLI calls as the operator. */
  identityKey: string;
  timeoutMs: number;
}

/** A setting the CLI cannot work without, missing or unreadable: exit code 2 with this message. */
export class ConnectionSetupError extends Error {
  override name = "ConnectionSetupError";
}

function readJsonObject(path: string): Record<string, unknown> | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8"));
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    throw new ConnectionSetupError(`${path} is not valid JSON`);
  }
}

/** Internal URLs from platform.json (`{"services": {"<name>": {"internalUrl": …}}}`). */
function discoveredUrls(dataDir: string): Partial<Record<CliTarget, string>> {
  const services = readJsonObject(join(dataDir, PLATFORM_FILE))?.services;
  if (typeof services !== "object" || services === null) return {};
  const urls: Partial<Record<CliTarget, string>> = {};
  for (const name of Object.keys(CLI_TARGETS) as CliTarget[]) {
    const url = (services as Record<string, { internalUrl?: unknown } | undefined>)[name]?.internalUrl;
    if (typeof url === "string") urls[name] = url;
  }
  return urls;
}

/** The data folder: `--data-dir`, else ATTESTO_DATA_DIR, else `.attesto` (as `npm start` uses it). */
export const dataDirOf = (flag: string | undefined, env: Env, cwd = process.cwd()) =>
  resolve(cwd, flag ?? env.ATTESTO_DATA_DIR ?? ".attesto");

/**
 * Where the platform is and how to authenticate to it. In order: flags, then the environment
 * (`<SERVICE>_INTERNAL_URL`, `ATTESTO_CREDENTIAL_FILE`, `SERVICE_IDENTITY_KEY`), then what a local
 * `npm start` left in the data folder (platform.json, secrets.json), then the default ports.
 */
export function resolveConnection(
  flags: { dataDir?: string; credentialFile?: string },
  env: Env,
  cwd = process.cwd(),
): ConnectionSettings {
  const dataDir = dataDirOf(flags.dataDir, env, cwd);
  const discovered = discoveredUrls(dataDir);
  const urls = Object.fromEntries(
    (Object.entries(CLI_TARGETS) as Array<[CliTarget, (typeof CLI_TARGETS)[CliTarget]]>).map(([name, target]) => [
      name,
      env[target.variable] || discovered[name] || `http://localhost:${target.port}`,
    ]),
  ) as Record<CliTarget, string>;

  let identityKey: string | undefined;
  let credentialSource: string;
  const credentialFile = flags.credentialFile ?? env.ATTESTO_CREDENTIAL_FILE;
  if (credentialFile) {
    credentialSource = resolve(cwd, credentialFile);
    try {
      identityKey = readFileSync(credentialSource, "utf8").trim();
    } catch {
      throw new ConnectionSetupError(`cannot read the credential file ${credentialSource}`);
    }
  } else if (env.SERVICE_IDENTITY_KEY) {
    credentialSource = "SERVICE_IDENTITY_KEY";
    identityKey = env.SERVICE_IDENTITY_KEY;
  } else {
    credentialSource = join(dataDir, SECRETS_FILE);
    const stored = readJsonObject(credentialSource)?.OPERATOR_SERVICE_IDENTITY_KEY;
    if (typeof stored === "string") identityKey = stored;
  }
  if (!identityKey) {
    throw new ConnectionSetupError(
      `no operator identity key: start the platform with \`npm start\` in this folder (it keeps one in ${join(dataDir, SECRETS_FILE)}), or give --credential-file / ATTESTO_CREDENTIAL_FILE / SERVICE_IDENTITY_KEY`,
    );
  }
  try {
    parseServiceIdentityKey(identityKey);
  } catch (error) {
    throw new ConnectionSetupError(`the operator identity key from ${credentialSource}: ${(error as Error).message}`);
  }
  const timeoutMs = Number(env.ATTESTO_RPC_TIMEOUT_MS ?? 10_000);
  return { dataDir, urls, credentialSource, identityKey, timeoutMs };
}

/** The clients of the internal APIs, as the operator identity. */
export interface PlatformConnection {
  settings: ConnectionSettings;
  platform: Platform;
  notary: Client<typeof notaryV1.NotaryService>;
  tenants: Client<typeof tenantV1.TenantService>;
  schemas: Client<typeof schemaV1.SchemaService>;
  signer: ServiceCredentialSigner;
}

export function connect(settings: ConnectionSettings): PlatformConnection {
  const signer = createServiceCredentialSigner({ privateKey: settings.identityKey, caller: OPERATOR_CALLER });
  const platform = createPlatformClients({
    trustRegistryUrl: settings.urls["trust-registry"],
    credentialIssuerUrl: settings.urls["credential-issuer"],
    verifierUrl: settings.urls.verifier,
    signer,
    timeoutMs: settings.timeoutMs,
  });
  const notary = createRpcClient(notaryV1.NotaryService, {
    baseUrl: settings.urls.scheduler,
    audience: "scheduler",
    signer,
    timeoutMs: settings.timeoutMs,
  });
  const schemas = createRpcClient(schemaV1.SchemaService, {
    baseUrl: settings.urls["schema-registry"],
    audience: "schema-registry",
    signer,
    timeoutMs: settings.timeoutMs,
  });
  return { settings, platform, notary, tenants: platform.tenants, schemas, signer };
}

/** The platform is not reachable: the message says where it was looked for and how to fix it. */
export class PlatformUnreachableError extends Error {
  override name = "PlatformUnreachableError";
}

/**
 * Checks that the internal ports of `targets` answer /health, so that a stopped platform is one clear
 * message instead of a retry loop per resource.
 */
export async function assertReachable(settings: ConnectionSettings, targets: readonly CliTarget[]): Promise<void> {
  for (const target of targets) {
    const url = settings.urls[target];
    const ok = await fetch(new URL("/health", url), { signal: AbortSignal.timeout(3_000) })
      .then((response) => response.ok)
      .catch(() => false);
    if (!ok) {
      throw new PlatformUnreachableError(
        `the ${target} is not reachable at ${url}: is the platform running? Start it with \`npm start\` (it records its addresses in ${join(settings.dataDir, PLATFORM_FILE)}), or set ${CLI_TARGETS[target].variable}`,
      );
    }
  }
}
