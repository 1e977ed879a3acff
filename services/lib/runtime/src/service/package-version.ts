import { readFileSync } from "node:fs";

/**
 * Reads `version` from the package.json nearest above a module, so `/health` reports the version
 * of the service that is running. `moduleUrl` is the caller's `import.meta.url`.
 */
export function readPackageVersion(moduleUrl: string): string {
  for (const relative of ["../package.json", "../../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, moduleUrl), "utf8")) as {
        version?: unknown;
        name?: unknown;
      };
      if (typeof pkg.version === "string" && typeof pkg.name === "string") return pkg.version;
    } catch {
      // keep looking upward
    }
  }
  return "0.0.0";
}
