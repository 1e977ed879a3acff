import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatePrivateKey } from "@attesto/protocol";
import { ConfigError, envPrefixOf } from "@attesto/runtime/config";
import { generateServiceIdentityKey, SERVICE_IDENTITIES, serviceIdentityPublicKeys } from "@attesto/runtime/rpc";
import type { Env } from "./service-address.js";
import { StartupError } from "./startup-error.js";

interface DevelopmentSecret {
  variable: string;
  /** The one service that reads it (it then reaches only that service), or every service. */
  service?: string;
  /** Only `<PREFIX>_<VARIABLE>` sets it: one value for every service would be a mistake. */
  perServiceOnly?: boolean;
  generate(): string;
}

const randomSecret = () => randomBytes(32).toString("base64url");

function p256PrivateJwkText(): string {
  const { kty, crv, x, y, d } = generatePrivateKey("p256").export({ format: "jwk" });
  return JSON.stringify({ kty, crv, x, y, d });
}

/**
 * Secrets services require that a developer should not have to invent for `npm start`. Generated
 * once and kept in the data folder, because what they protect must stay valid after a restart
 * (private keys encrypted under the key-encryption key, issued tokens). Production sets them.
 * When a service makes another secret mandatory, add it here (the e2e test fails until then).
 */
const DEVELOPMENT_SECRETS: DevelopmentSecret[] = [
  { variable: "KEY_ENCRYPTION_KEYS", generate: () => `dev1:${randomSecret()}` },
  { variable: "LOGIN_TOKEN_SECRET", service: "trust-registry", generate: randomSecret },
  { variable: "NONCE_SECRET", service: "credential-issuer", generate: randomSecret },
  { variable: "DPOP_NONCE_SECRET", service: "auth-server", generate: randomSecret },
  { variable: "HOLDER_TOKEN_SECRET", service: "holder", generate: randomSecret },
  { variable: "ACCESS_TOKEN_SIGNING_KEY", service: "auth-server", generate: p256PrivateJwkText },
  // The holder as its own wallet provider (authorization code flow); the auth server trusts it (wallet-provider-trust.ts).
  { variable: "WALLET_PROVIDER_KEY", service: "holder", generate: p256PrivateJwkText },
  // Each identity's own key, the operator's included (the `attesto` CLI and a local operator find it here).
  ...SERVICE_IDENTITIES.map((service) => ({
    variable: "SERVICE_IDENTITY_KEY",
    service,
    perServiceOnly: true,
    generate: generateServiceIdentityKey,
  })),
];

export const SECRETS_FILE = "secrets.json";

/** The variable a secret is handed over as: `<PREFIX>_<VARIABLE>` for one service, else `<VARIABLE>`. */
const envNameOf = (secret: DevelopmentSecret) =>
  secret.service ? `${envPrefixOf(secret.service)}_${secret.variable}` : secret.variable;

function readSecrets(path: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not a JSON object");
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new StartupError(`${path} is unreadable; fix or delete it (data encrypted under its keys is then lost)`, {
      cause: error,
    });
  }
}

/**
 * The development secrets the environment does not set (neither as `<VARIABLE>` nor as
 * `<PREFIX>_<VARIABLE>`), as environment variables, from `<dataDir>/secrets.json` (created with
 * mode 0600 on first use). Also names those generated just now.
 */
export function developmentSecrets(dataDir: string, env: Env): { values: Record<string, string>; generated: string[] } {
  const missing = DEVELOPMENT_SECRETS.filter(
    (secret) => (secret.perServiceOnly || !env[secret.variable]) && !env[envNameOf(secret)],
  );
  if (missing.length === 0) return { values: {}, generated: [] };
  const path = join(dataDir, SECRETS_FILE);
  const stored = readSecrets(path);
  const generated = missing.filter((secret) => !stored[envNameOf(secret)]);
  if (generated.length > 0) {
    for (const secret of generated) stored[envNameOf(secret)] = secret.generate();
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(path, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  }
  return {
    values: Object.fromEntries(missing.map((secret) => [envNameOf(secret), stored[envNameOf(secret)]!])),
    generated: generated.map(envNameOf),
  };
}

/**
 * SERVICE_IDENTITY_PUBLIC_KEYS when the environment does not set it: the public half of every
 * identity's `<PREFIX>_SERVICE_IDENTITY_KEY` (from the environment or the data folder).
 */
export function identityPublicKeysOf(env: Env): string {
  const privateKeys: Record<string, string> = {};
  for (const name of SERVICE_IDENTITIES) {
    const variable = `${envPrefixOf(name)}_SERVICE_IDENTITY_KEY`;
    privateKeys[name] = env[variable] ?? "";
    try {
      serviceIdentityPublicKeys({ [name]: privateKeys[name] });
    } catch (error) {
      throw new ConfigError(`Invalid configuration:\n  ${variable}: ${(error as Error).message}`);
    }
  }
  return serviceIdentityPublicKeys(privateKeys);
}
