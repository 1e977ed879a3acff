import { badRequest, conflict } from "@attesto/runtime/errors";
import { computeContentHash } from "./compute-content-hash.js";
import type { CredentialType } from "./credential-type.js";
import type { UpsertOutcome } from "./credential-type-query.js";
import { checkCredentialTypeDefinition } from "./parse-credential-type-seed.js";
import type { CredentialTypeRepository } from "./ports.js";

export interface PutOutcome {
  outcome: UpsertOutcome;
  credentialType: CredentialType;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`the credential type is not valid JSON (${(error as Error).message})`);
  }
}

/**
 * SchemaService.PutCredentialType (`attesto types add`): adds a credential type given as the JSON of
 * a seed file. 400 listing every problem, one `field: message` per line. The same content again is
 * `unchanged`; other fields may change (`updated`), but a version's schema never does: credentials
 * already issued under its vct were checked against it, so a new schema needs a new version (409).
 */
export async function putCredentialType(repository: CredentialTypeRepository, json: string): Promise<PutOutcome> {
  const checked = checkCredentialTypeDefinition(parseJson(json));
  if (checked.problems) {
    throw badRequest(`invalid credential type:\n${checked.problems.map((problem) => `  ${problem}`).join("\n")}`);
  }
  const { definition } = checked;
  const contentHash = computeContentHash(definition);
  const outcome = await repository.upsert(definition, contentHash, { keepSchema: true });
  const stored = await repository.find(definition.type, definition.version);
  if (!stored) throw new Error(`credential type ${definition.type}/${definition.version} vanished after it was stored`);
  if (outcome === "unchanged" && stored.contentHash !== contentHash) {
    throw conflict(
      `credential type '${definition.type}' version '${definition.version}' already exists with a different schema: the schema of a version cannot change (credentials issued under its vct rely on it); add the new schema as a new version`,
    );
  }
  return { outcome, credentialType: stored };
}
