import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RevealedCredential } from "../local-cluster/local-cluster.js";
import type { CommandIo } from "./io.js";

const FILE_SUFFIX = { "api-key": "key", "webhook-secret": "webhook-secret" } as const;
const LABEL = { "api-key": "API key", "webhook-secret": "webhook signing secret" } as const;

/** `<dir>/<tenant-id>.key` (API key) or `<dir>/<tenant-id>.webhook-secret`. */
export const credentialFileOf = (dir: string, credential: Pick<RevealedCredential, "tenantId" | "key">) =>
  join(resolve(dir), `${credential.tenantId}.${FILE_SUFFIX[credential.key]}`);

/**
 * Writes a credential file readable by its owner only (mode 0600, also when it existed), atomically:
 * the value goes to a temporary file beside it, renamed into place, so a reader never sees the file
 * empty or half written.
 */
export function writeCredentialFile(path: string, value: string): void {
  mkdirSync(resolve(path, ".."), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    writeFileSync(temporary, `${value}\n`, { mode: 0o600, flag: "wx" });
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Hands over a credential the platform reveals once: into `<dir>/<tenant-id>.key` (or
 * `.webhook-secret`) when a directory is given, else printed on stdout with a warning to store it.
 */
export function revealTo(io: CommandIo, dir: string | undefined): (credential: RevealedCredential) => void {
  return (credential) => {
    const label = `${LABEL[credential.key]} of tenant ${credential.tenantId}`;
    if (dir) {
      const path = credentialFileOf(dir, credential);
      writeCredentialFile(path, credential.value);
      io.err(`${label} written to ${path}`);
    } else {
      io.err(`${label} (shown once; store it now):`);
      io.out(credential.value);
    }
  };
}
