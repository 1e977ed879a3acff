import { ConfigError, envPrefixOf, publicUrlOf } from "@attesto/runtime/config";
import { demoProviderEnv } from "./demo-provider-trust.js";
import { ownOutboundAllowance, withOwnAllowance } from "./outbound-allowance.js";
import type { Env, ServiceAddress } from "./service-address.js";
import { holderWalletProviderEnv } from "./wallet-provider-trust.js";

/**
 * Variables that describe one service. Inherited from the launcher's environment they would give
 * every service the same value (one schema, one URL), so only the `<PREFIX>_<VAR>` form applies.
 */
export const PER_SERVICE_VARIABLES = ["PORT", "INTERNAL_PORT", "PUBLIC_URL", "DATABASE_SCHEMA", "SERVICE_IDENTITY_KEY"];

/** `<PREFIX>_<VAR>` variables of one service, with the prefix removed: SCHEMA_REGISTRY_PUBLIC_URL -> PUBLIC_URL. */
export function overridesOf(prefix: string, env: Env): Record<string, string> {
  const start = `${prefix}_`;
  const overrides: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith(start) && key.length > start.length && value !== undefined && value !== "") {
      overrides[key.slice(start.length)] = value;
    }
  }
  return overrides;
}

/** The host name that reaches a listener bound to `host` from this machine. */
export function localHostOf(host: string): string {
  if (["0.0.0.0", "::", "127.0.0.1", "::1", "localhost"].includes(host)) return "localhost";
  return host.includes(":") ? `[${host}]` : host;
}

function portOverride(variable: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) {
    throw new ConfigError(`Invalid configuration:\n  ${variable}: must be a port number from 1 to 65535`);
  }
  return port;
}

/**
 * The address of every service: the default ports (root README, "Services and ports") plus `portOffset`, unless a
 * `<PREFIX>_PORT` / `<PREFIX>_INTERNAL_PORT` / `<PREFIX>_PUBLIC_URL` / `<PREFIX>_HOST` says otherwise.
 */
export function planAddresses(
  services: ReadonlyArray<{ definition: { name: string }; ports: { public: number; internal: number } }>,
  options: { host: string; portOffset: number },
  env: Env,
): ServiceAddress[] {
  return services.map(({ definition: { name }, ports }) => {
    const prefix = envPrefixOf(name);
    const overrides = overridesOf(prefix, env);
    const host = overrides.HOST ?? options.host;
    const port = portOverride(`${prefix}_PORT`, overrides.PORT, ports.public + options.portOffset);
    const internalPort = portOverride(
      `${prefix}_INTERNAL_PORT`,
      overrides.INTERNAL_PORT,
      ports.internal + options.portOffset,
    );
    const local = localHostOf(host);
    return {
      name,
      prefix,
      host,
      port,
      internalPort,
      publicUrl: publicUrlOf({ PUBLIC_URL: overrides.PUBLIC_URL, PORT: port }),
      internalUrl: `http://${local}:${internalPort}`,
      healthUrls: { public: `http://${local}:${port}/health`, internal: `http://${local}:${internalPort}/health` },
    };
  });
}

/** `<PREFIX>_URL` and `<PREFIX>_INTERNAL_URL` of every service, so services find each other. */
export function discoveryEnv(addresses: readonly ServiceAddress[]): Record<string, string> {
  return Object.fromEntries(
    addresses.flatMap((a) => [
      [`${a.prefix}_URL`, a.publicUrl],
      [`${a.prefix}_INTERNAL_URL`, a.internalUrl],
    ]),
  );
}

/**
 * One service's environment, later layers winning: the launcher's environment (without the
 * per-service variables), HOST and LOG_LEVEL, every service's URLs, OUTBOUND_ALLOW_HOSTS with the
 * platform's own loopback public origins added, the auth server's trust in the demo wallet provider
 * while every listener is on loopback and in the holder's own wallet provider key, the service's own `<PREFIX>_<VAR>` overrides (its
 * SERVICE_IDENTITY_KEY among them), and finally what the launcher decides: ports, database, the
 * public keys of every identity.
 */
export function buildServiceEnv(options: {
  address: ServiceAddress;
  addresses: readonly ServiceAddress[];
  env: Env;
  logLevel: string;
  databaseUrl: string;
  serviceIdentityPublicKeys: string;
}): Env {
  const { address, env } = options;
  const inherited = Object.fromEntries(Object.entries(env).filter(([key]) => !PER_SERVICE_VARIABLES.includes(key)));
  return {
    ...inherited,
    HOST: address.host,
    LOG_LEVEL: options.logLevel,
    ...discoveryEnv(options.addresses),
    OUTBOUND_ALLOW_HOSTS: withOwnAllowance(env.OUTBOUND_ALLOW_HOSTS, ownOutboundAllowance(options.addresses)),
    ...overridesOf(address.prefix, demoProviderEnv(options.addresses, env)),
    ...overridesOf(address.prefix, holderWalletProviderEnv(env)),
    ...overridesOf(address.prefix, env),
    PORT: String(address.port),
    INTERNAL_PORT: String(address.internalPort),
    DATABASE_URL: options.databaseUrl,
    SERVICE_IDENTITY_PUBLIC_KEYS: options.serviceIdentityPublicKeys,
  };
}
