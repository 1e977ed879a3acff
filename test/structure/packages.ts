import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICE_IDENTITIES } from "@attesto/runtime/rpc";

/** The repository's root folder. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The eight services: every internal identity but the operator's. */
export const SERVICES = SERVICE_IDENTITIES.filter((name) => name !== "operator");

/** Every workspace package with source: the services, the launcher, the shared libraries, the operator and the CLI. */
export const PACKAGES = [
  ...SERVICES.map((name) => `services/${name}`),
  "services/all-in-one",
  ...readdirSync(join(repoRoot, "services/lib")).map((name) => `services/lib/${name}`),
  "operator",
  "cli",
];
