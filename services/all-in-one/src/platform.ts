import { join, resolve } from "node:path";
import { type BaseConfig, ConfigError, envPrefixOf } from "@attesto/runtime/config";
import { enableInProcessRpc } from "@attesto/runtime/rpc";
import { launchService, type RunningService, type ServiceModule } from "@attesto/runtime/service";
import type { Tracing } from "@attesto/runtime/telemetry";
import { makePrivate } from "@attesto/store";
import type { Logger } from "pino";
import { assertPortsFree } from "./check-ports.js";
import type { LauncherConfig } from "./config.js";
import { type ConfigDirWatcher, watchConfigDir } from "./config-dir.js";
import { openPlatformDatabase, type PlatformDatabase } from "./database.js";
import { demoProviderTrust } from "./demo-provider-trust.js";
import { developmentSecrets, identityPublicKeysOf, SECRETS_FILE } from "./dev-secrets.js";
import { ownOutboundAllowance, withOwnAllowance } from "./outbound-allowance.js";
import { writePlatformFile } from "./platform-file.js";
import type { Env, ServiceAddress } from "./service-address.js";
import { buildServiceEnv, PER_SERVICE_VARIABLES, planAddresses } from "./service-env.js";
import { platformServices } from "./services.js";
import { StartupError } from "./startup-error.js";
import { waitForHealth } from "./wait-for-health.js";

export interface PlatformOptions {
  config: LauncherConfig;
  /** The environment the services inherit (default process.env). */
  env?: Env;
  /** Where ATTESTO_DATA_DIR is resolved (default process.cwd()). */
  cwd?: string;
  logger: Logger;
  tracing?: Tracing;
  /** Aborting stops start-up between steps; what had started is closed. */
  signal?: AbortSignal;
  /** The services to run, in start order (default: all of them). */
  services?: ReadonlyArray<ServiceModule<BaseConfig>>;
}

export type PlatformService = ServiceAddress;

export interface Platform {
  services: PlatformService[];
  database: Omit<PlatformDatabase, "close">;
  /**
   * `host:port` entries the outbound request guard lets the holder, verifier and scheduler reach
   * although internal: this platform's own loopback public origins plus OUTBOUND_ALLOW_HOSTS.
   */
  outboundAllowance: string[];
  /** Whether the auth server trusts the demo wallet provider (published key): set while every listener is on loopback. */
  demoWalletProviderTrusted: boolean;
  /** Closes every service (last started first), then the database. Safe to call twice. */
  close(): Promise<void>;
}

/** Parses every service's configuration, naming the service and its variable prefix on failure. */
function configure(modules: ReadonlyArray<ServiceModule<BaseConfig>>, envOf: (index: number) => Env): BaseConfig[] {
  return modules.map((module, index) => {
    try {
      return module.loadConfig(envOf(index));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const name = module.definition.name;
      throw new ConfigError(
        `${name}: ${error.message}\n(to set a variable for ${name} only: ${envPrefixOf(name)}_<NAME>)`,
      );
    }
  });
}

/**
 * Starts every service in one process on its own ports, sharing one database (each service in its
 * own schema), and resolves when every public and internal /health answers 200 over HTTP.
 */
export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const { config, logger } = options;
  const cwd = options.cwd ?? process.cwd();
  enableInProcessRpc(config.IN_PROCESS_RPC);
  const dataDir = resolve(cwd, config.ATTESTO_DATA_DIR);
  const tightened = makePrivate(dataDir);
  if (tightened > 0) {
    logger.warn(
      `tightened the modes of ${tightened} files and folders under ${dataDir}: group and other access removed`,
    );
  }
  const secrets = developmentSecrets(dataDir, options.env ?? process.env);
  if (secrets.generated.length > 0) {
    logger.info(`generated development secrets ${secrets.generated.join(", ")} in ${join(dataDir, SECRETS_FILE)}`);
  }
  const env = { ...(options.env ?? process.env), ...secrets.values };
  const modules = options.services ?? platformServices;
  const addresses = planAddresses(modules, { host: config.HOST, portOffset: config.PORT_OFFSET }, env);
  // What buildServiceEnv hands every service (a per-service override aside), for the ready report.
  const outboundAllowance = withOwnAllowance(env.OUTBOUND_ALLOW_HOSTS, ownOutboundAllowance(addresses));
  const demoTrust = demoProviderTrust(addresses, env);
  if (demoTrust.decision === "exposed") {
    logger.info(
      `${demoTrust.exposed.join(", ")} listen beyond loopback: the demo wallet provider is not trusted; configure AUTH_SERVER_CLIENT_ATTESTATION_TRUSTED_KEYS (or _TRUSTED_X5C_ROOTS_PEM)`,
    );
  }
  const ignored = PER_SERVICE_VARIABLES.filter((name) => env[name]);
  if (ignored.length > 0) {
    logger.warn(
      `ignored ${ignored.join(", ")}: they name one service; use <SERVICE>_<NAME>, e.g. AUTH_SERVER_PUBLIC_URL`,
    );
  }

  const publicKeys = env.SERVICE_IDENTITY_PUBLIC_KEYS ?? identityPublicKeysOf(env);
  const envOf = (databaseUrl: string) => (i: number) =>
    buildServiceEnv({
      address: addresses[i]!,
      addresses,
      env,
      logLevel: config.LOG_LEVEL,
      databaseUrl,
      serviceIdentityPublicKeys: publicKeys,
    });
  // Fail on a bad variable before spending seconds on the database.
  configure(modules, envOf(config.DATABASE_URL ?? "postgres://embedded.invalid/attesto"));
  await assertPortsFree(
    addresses.flatMap((a) => [
      { host: a.host, port: a.port, owner: `${a.name} public` },
      { host: a.host, port: a.internalPort, owner: `${a.name} internal` },
    ]),
  );

  const checkAborted = () => {
    if (options.signal?.aborted) throw new StartupError("start-up interrupted");
  };
  const running: RunningService[] = [];
  let database: PlatformDatabase | undefined;
  let configWatcher: ConfigDirWatcher | undefined;
  let removePlatformFile: (() => void) | undefined;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      const failures: unknown[] = [];
      configWatcher?.close();
      await configWatcher?.settled();
      removePlatformFile?.();
      for (const service of [...running].reverse()) {
        await service.close().catch((error: unknown) => {
          logger.error({ err: error, service: service.name }, "service did not close cleanly");
          failures.push(error);
        });
      }
      await database?.close().catch((error: unknown) => {
        logger.error({ err: error }, "database did not close cleanly");
        failures.push(error);
      });
      if (failures.length > 0) throw new AggregateError(failures, "some parts did not close cleanly");
    })();
    return closing;
  };

  try {
    checkAborted();
    database = await openPlatformDatabase(config, cwd, logger);
    const configs = configure(modules, envOf(database.url));
    for (const [i, module] of modules.entries()) {
      checkAborted();
      const name = module.definition.name;
      try {
        // One process: its Node.js metrics are reported once, by the first service started.
        running.push(
          await launchService(module.definition, configs[i]!, { tracing: options.tracing, processMetrics: i === 0 }),
        );
      } catch (error) {
        throw new StartupError(`${name} did not start`, { cause: error });
      }
      logger.debug({ service: name }, "service started");
    }
    checkAborted();
    await waitForHealth(
      addresses.flatMap((a) => [
        { service: a.name, url: a.healthUrls.public },
        { service: a.name, url: a.healthUrls.internal },
      ]),
      { timeoutMs: config.STARTUP_TIMEOUT_MS, signal: options.signal },
    );
    removePlatformFile = writePlatformFile(dataDir, addresses);
    if (config.ATTESTO_CONFIG_DIR) {
      configWatcher = watchConfigDir({
        configDir: resolve(cwd, config.ATTESTO_CONFIG_DIR),
        dataDir,
        addresses,
        operatorIdentityKey: env.OPERATOR_SERVICE_IDENTITY_KEY ?? "",
        logger,
      });
    }
    const { url, description, embedded } = database;
    return {
      services: addresses,
      database: { url, description, embedded },
      outboundAllowance: outboundAllowance.split(",").filter(Boolean),
      demoWalletProviderTrusted: demoTrust.decision === "loopback",
      close,
    };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}
