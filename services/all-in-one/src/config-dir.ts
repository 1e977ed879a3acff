import { type FSWatcher, watch } from "node:fs";
import { join, resolve } from "node:path";
import {
  applyManifests,
  connect,
  credentialFileOf,
  readManifests,
  validateManifests,
  writeCredentialFile,
} from "@attesto/cli";
import type { Logger } from "pino";
import type { ServiceAddress } from "./service-address.js";

/** Changes within this many milliseconds are applied together (editors write a file in several steps). */
const DEBOUNCE_MS = 300;

/** Where the API keys and webhook secrets of tenants created from ATTESTO_CONFIG_DIR are written. */
export const API_KEYS_DIR = "api-keys";

export interface ConfigDirWatcher {
  /** Resolves when the apply running now (if any) and any queued one have finished. */
  settled(): Promise<void>;
  close(): void;
}

/**
 * ATTESTO_CONFIG_DIR: applies the directory's Tenant, Issuer and VerifierPolicy YAML at start-up
 * and again when a file changes, with the same control plane as `attesto apply -f <dir>` (the
 * operator's reconcilers, state in the data folder). A new tenant's API key goes to
 * `<dataDir>/api-keys/<tenant-id>.key` (mode 0600); the log names the file, never the key. Removing
 * a file deletes nothing (use `attesto delete -f`).
 */
export function watchConfigDir(options: {
  configDir: string;
  dataDir: string;
  addresses: readonly ServiceAddress[];
  /** The operator's identity key (the config directory is applied as the operator). */
  operatorIdentityKey: string;
  logger: Logger;
}): ConfigDirWatcher {
  const { logger } = options;
  const configDir = resolve(options.configDir);
  const urlOf = (name: string) => options.addresses.find((a) => a.name === name)?.internalUrl ?? "";
  const connection = connect({
    dataDir: options.dataDir,
    urls: {
      "trust-registry": urlOf("trust-registry"),
      "credential-issuer": urlOf("credential-issuer"),
      verifier: urlOf("verifier"),
      scheduler: urlOf("scheduler"),
      "schema-registry": urlOf("schema-registry"),
    },
    credentialSource: "OPERATOR_SERVICE_IDENTITY_KEY",
    identityKey: options.operatorIdentityKey,
    timeoutMs: 10_000,
  });
  const keysDir = join(options.dataDir, API_KEYS_DIR);

  const applyOnce = async () => {
    try {
      const manifests = validateManifests(readManifests([configDir]));
      const outcomes = await applyManifests(manifests, {
        dataDir: options.dataDir,
        platform: connection.platform,
        reveal: (credential) => {
          const path = credentialFileOf(keysDir, credential);
          writeCredentialFile(path, credential.value);
          logger.info({ tenant: credential.tenantId, file: path }, `${credential.key} of tenant written to ${path}`);
        },
      });
      for (const outcome of outcomes) {
        const ready = outcome.ready;
        const fields = { kind: outcome.kind, name: outcome.name, action: outcome.action };
        if (outcome.kind === "Secret" || ready?.status === "True") {
          if (outcome.action !== "unchanged") logger.info(fields, `${outcome.kind} ${outcome.name} ${outcome.action}`);
        } else {
          logger.warn(
            { ...fields, reason: ready?.reason, message: ready?.message },
            `${outcome.kind} ${outcome.name} is not ready`,
          );
        }
      }
    } catch (error) {
      logger.warn({ dir: configDir, err: (error as Error).message }, "ATTESTO_CONFIG_DIR not applied");
    }
  };

  let running: Promise<void> = Promise.resolve();
  let queued = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (queued) return;
    queued = true;
    running = running.then(() => {
      queued = false;
      return applyOnce();
    });
  };

  schedule();
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(configDir, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(schedule, DEBOUNCE_MS);
    });
    watcher.on("error", (error) => logger.warn({ err: error.message }, "ATTESTO_CONFIG_DIR watch failed"));
  } catch (error) {
    logger.warn({ dir: configDir, err: (error as Error).message }, "ATTESTO_CONFIG_DIR cannot be watched");
  }
  return {
    settled: async () => {
      let current: Promise<void>;
      do {
        current = running;
        await current;
      } while (current !== running);
    },
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
