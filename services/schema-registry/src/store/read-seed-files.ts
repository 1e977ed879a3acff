import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SeedFile } from "../domain/parse-credential-type-seed.js";

/** The `*.json` files of a seeds directory, in name order. A missing directory fails start-up. */
export async function readSeedFiles(directory: string): Promise<SeedFile[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    throw new Error(`Cannot read the credential type seeds directory ${directory}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const files = names.filter((name) => name.endsWith(".json")).sort();
  return Promise.all(
    files.map(async (name) => {
      const file = join(directory, name);
      return { file, text: await readFile(file, "utf8") };
    }),
  );
}
