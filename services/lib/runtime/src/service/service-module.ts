import type { BaseConfig } from "../config.js";
import { ConfigError } from "../config.js";
import { type App, createApp } from "../http/create-app.js";
import { createLogger } from "../logger.js";
import { startTracing } from "../telemetry/tracing.js";
import { closeOnSignals, launchService, type ServiceContext, type ServiceDefinition } from "./launch.js";

/** Everything a launcher needs to know about a service: how to configure it and how to run it. */
export interface ServiceModule<C extends BaseConfig = BaseConfig> {
  definition: ServiceDefinition<C>;
  /** Parses the service's configuration from environment variables. */
  loadConfig(env: Record<string, string | undefined>): C;
  /** Default public and internal ports (root README, "Services and ports"). */
  ports: { public: number; internal: number };
}

/**
 * One value per running service, made on first use: the edges (stores, clients, caches) that the
 * public app, the internal RPC and start-up work of one `ServiceContext` share instead of building
 * them once each.
 */
export function perService<C extends BaseConfig, T>(create: (context: ServiceContext<C>) => T) {
  const values = new WeakMap<ServiceContext<C>, T>();
  return (context: ServiceContext<C>): T => {
    if (!values.has(context)) values.set(context, create(context));
    return values.get(context) as T;
  };
}

/** The base Fastify app of a service, built from its context. */
export function createServiceApp(context: ServiceContext): Promise<App> {
  return createApp({
    service: context.service,
    version: context.version,
    config: context.config,
    metrics: context.metrics,
    publicUrl: context.publicUrl,
    plugins: context.plugins,
  });
}

/** A service's `main.ts`: configure from the environment, start, drain on SIGTERM. */
export async function runServiceMain<C extends BaseConfig>(module: ServiceModule<C>): Promise<void> {
  const name = module.definition.name;
  let config: C;
  try {
    config = module.loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`${name}: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const tracing = await startTracing({
    serviceName: name,
    endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    logger: createLogger(name, config.LOG_LEVEL),
  });
  let running: Awaited<ReturnType<typeof launchService>>;
  try {
    running = await launchService(module.definition, config, { tracing });
  } catch (error) {
    console.error(`${name} failed to start: ${error instanceof Error ? error.message : String(error)}`);
    await tracing?.shutdown();
    process.exit(1);
  }
  closeOnSignals(
    async () => {
      await running.close();
      await tracing?.shutdown();
    },
    { graceMs: config.SHUTDOWN_GRACE_MS, name },
  );
}
