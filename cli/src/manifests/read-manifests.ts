import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { parseAllDocuments } from "yaml";
import { expandVariables } from "./expand-variables.js";
import { ManifestError } from "./manifest-error.js";

/** One YAML (or JSON) document and where it came from, e.g. `tenants.yaml#2`. */
export interface RawDocument {
  source: string;
  value: unknown;
}

const MANIFEST_EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

export { ManifestError };

/** The manifest files of a path: the file itself, or a directory's *.yaml, *.yml and *.json (recursively, sorted). */
export function manifestFilesOf(path: string): string[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    throw new ManifestError(`${path}: no such file or directory`);
  }
  if (!stat.isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith("."))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const child = join(path, entry.name);
      if (entry.isDirectory()) return manifestFilesOf(child);
      return MANIFEST_EXTENSIONS.has(extname(entry.name).toLowerCase()) ? [child] : [];
    });
}

/** Every non-empty document of a multi-document YAML text. */
export function parseManifestText(text: string, file: string): RawDocument[] {
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents)) return [];
  return documents.flatMap((document, index) => {
    const source = documents.length > 1 ? `${file}#${index + 1}` : file;
    if (document.errors.length > 0) {
      throw new ManifestError(`${source}: not valid YAML: ${document.errors[0]?.message.split("\n")[0]}`);
    }
    const value: unknown = document.toJS({ maxAliasCount: 100 });
    return value === null || value === undefined ? [] : [{ source, value }];
  });
}

/**
 * Reads every document of the given files and directories, with `${NAME}` / `${NAME:-default}` in
 * string values taken from `env` (expand-variables.ts).
 */
export function readManifests(
  paths: readonly string[],
  env: Record<string, string | undefined> = process.env,
): RawDocument[] {
  return paths.flatMap(manifestFilesOf).flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new ManifestError(`${file}: ${(error as Error).message}`);
    }
    return parseManifestText(text, file).map(({ source, value }) => ({
      source,
      value: expandVariables(value, env, source),
    }));
  });
}
