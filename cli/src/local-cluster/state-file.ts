import { randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { CustomResource, Secret } from "@attesto/operator/library";

/**
 * The local control plane's state: the resources applied (spec, metadata, the status the reconcilers
 * wrote) and the Secrets they reference or own, in one JSON file in the data folder (mode 0600).
 * API keys and webhook secrets the platform reveals are never stored here (local-cluster.ts).
 */
export interface ControlPlaneState {
  version: 1;
  resources: CustomResource[];
  secrets: Secret[];
}

export const STATE_FILE = "control-plane.json";
const LOCK_FILE = "control-plane.lock";

export const emptyState = (): ControlPlaneState => ({ version: 1, resources: [], secrets: [] });

export function readState(path: string): ControlPlaneState {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyState();
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<ControlPlaneState>;
  if (parsed.version !== 1 || !Array.isArray(parsed.resources) || !Array.isArray(parsed.secrets)) {
    throw new Error(`${path} is not a control-plane state file (delete it to start over)`);
  }
  return parsed as ControlPlaneState;
}

/** Writes the whole state atomically (temporary file, then rename), mode 0600. */
export function writeState(path: string, state: ControlPlaneState): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${randomUUID()}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` holding the data folder's control-plane lock, so that the CLI and the all-in-one's
 * config watcher never reconcile at the same time. A lock left by a process that is gone is taken
 * over; a live holder is waited for up to `timeoutMs`.
 */
export async function withStateLock<T>(dataDir: string, work: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  mkdirSync(dataDir, { recursive: true });
  const lock = join(dataDir, LOCK_FILE);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = openSync(lock, "wx", 0o600);
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(lock, "utf8").trim() || "0");
      if (!holder || !isAlive(holder)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`${lock} is held by process ${holder}; another apply is running`);
      }
      await sleep(100);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}
