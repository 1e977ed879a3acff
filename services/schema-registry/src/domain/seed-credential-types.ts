import { computeContentHash } from "./compute-content-hash.js";
import type { UpsertOutcome } from "./credential-type-query.js";
import { parseCredentialTypeSeed, type SeedFile } from "./parse-credential-type-seed.js";
import type { CredentialTypeRepository } from "./ports.js";
import { SeedError } from "./seed-error.js";

export type SeedSummary = Record<UpsertOutcome, number>;

/**
 * Loads seed files into the repository, idempotently: every file is parsed and checked before
 * anything is written (one bad seed writes nothing), then each type is upserted by (type, version);
 * unchanged content keeps its row, including `updated_at`.
 */
export async function seedCredentialTypes(
  files: SeedFile[],
  repository: CredentialTypeRepository,
): Promise<SeedSummary> {
  const definitions = files.map((file) => ({ file: file.file, definition: parseCredentialTypeSeed(file) }));
  const seen = new Map<string, string>();
  for (const { file, definition } of definitions) {
    const key = `${definition.type}/${definition.version}`;
    const first = seen.get(key);
    if (first)
      throw new SeedError(
        file,
        `type '${definition.type}' version '${definition.version}' is also defined in ${first}`,
      );
    seen.set(key, file);
  }
  const summary: SeedSummary = { created: 0, updated: 0, unchanged: 0 };
  for (const { definition } of definitions) {
    summary[await repository.upsert(definition, computeContentHash(definition))]++;
  }
  return summary;
}
