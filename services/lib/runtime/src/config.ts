import { z } from "zod";
import { parseServiceIdentityKey, parseServiceIdentityPublicKeys } from "./rpc/service-identity.js";

/**
 * Service configuration comes from environment variables, parsed once at start-up by zod.
 * Names carry their units (`_MS`, `_SECONDS`, `_BYTES`). Every variable is documented in README.md.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** A zod check that runs `parse` and reports its error message as the issue. */
function validWith(parse: (value: string) => unknown) {
  return z.superRefine<string>((value, ctx) => {
    try {
      parse(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
    }
  });
}

const port = z.coerce.number().int().min(0).max(65535);
const booleanFlag = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

/** Variables every service reads. `defaults` gives per-service defaults (ports, schema name). */
export function baseConfigShape(defaults: { port: number; internalPort: number; databaseSchema: string }) {
  return {
    HOST: z.string().min(1).default("0.0.0.0"),
    PORT: port.default(defaults.port),
    INTERNAL_PORT: port.default(defaults.internalPort),
    /** URL under which clients reach this service; defaults to http://localhost:<PORT>. */
    PUBLIC_URL: z.url().optional(),
    DATABASE_URL: z.string().min(1, "DATABASE_URL is required (a postgres:// URL)"),
    DATABASE_SCHEMA: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, "must be a lowercase SQL identifier")
      .default(defaults.databaseSchema),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /** This service's own identity: its Ed25519 private JWK, signing its service credentials. */
    SERVICE_IDENTITY_KEY: z
      .string({ error: "SERVICE_IDENTITY_KEY is required" })
      .check(validWith(parseServiceIdentityKey)),
    /** JWK Set of every identity's Ed25519 public key (`kid` = identity), checking callers' credentials. */
    SERVICE_IDENTITY_PUBLIC_KEYS: z
      .string({ error: "SERVICE_IDENTITY_PUBLIC_KEYS is required" })
      .check(validWith(parseServiceIdentityPublicKeys)),
    /** OTLP/HTTP traces endpoint, e.g. http://otel-collector:4318/v1/traces. Tracing is off when unset. */
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(50 * 1024 * 1024)
      .default(1024 * 1024),
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000),
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
    RPC_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
    /** Deadline of each readiness check of `GET /ready` (database, migrations, peers). */
    READINESS_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(2_000),
    /** Comma-separated allowed CORS origins, or `*`. */
    CORS_ORIGINS: z.string().default("*"),
    /** Trust X-Forwarded-For from a proxy in front (needed for per-IP limits behind an ingress). */
    TRUST_PROXY: booleanFlag.default(false),
  } as const;
}

export type BaseConfigShape = ReturnType<typeof baseConfigShape>;
export type BaseConfig = z.infer<z.ZodObject<BaseConfigShape>>;

/** Parses `env` with `schema`, failing with one message that names every bad variable. */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join(".") || "(root)"}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}`);
  }
  return result.data;
}

/** The public URL of a service: PUBLIC_URL without a trailing slash, else http://localhost:<PORT>. */
export function publicUrlOf(config: Pick<BaseConfig, "PUBLIC_URL" | "PORT">): string {
  return (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, "");
}

export { booleanFlag, port as portSchema };

/** The environment-variable prefix of a service, e.g. "schema-registry" -> "SCHEMA_REGISTRY". */
export const envPrefixOf = (service: string) => service.toUpperCase().replace(/-/g, "_");
