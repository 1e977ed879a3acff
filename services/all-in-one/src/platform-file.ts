import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServiceAddress } from "./service-address.js";

/** Where a running `npm start` tells tools (the `attesto` CLI) how to reach each service. */
export const PLATFORM_FILE = "platform.json";

/**
 * Writes `<dataDir>/platform.json`: `{"pid": …, "services": {"<name>": {"publicUrl", "internalUrl"}}}`.
 * Addresses only, no secret. Returns a function that removes it (on shutdown).
 */
export function writePlatformFile(dataDir: string, services: readonly ServiceAddress[]): () => void {
  const path = join(dataDir, PLATFORM_FILE);
  const content = {
    pid: process.pid,
    services: Object.fromEntries(services.map((s) => [s.name, { publicUrl: s.publicUrl, internalUrl: s.internalUrl }])),
  };
  writeFileSync(path, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  return () => rmSync(path, { force: true });
}
