import { notFound } from "@attesto/runtime/errors";
import type { CredentialType } from "./credential-type.js";
import type { CredentialTypeRepository } from "./ports.js";
import type { TypeVersion } from "./vct-url.js";

/** The stored credential type, or a 404 that says whether the type or only the version is unknown. */
export async function findCredentialType(
  repository: CredentialTypeRepository,
  { type, version }: TypeVersion,
): Promise<CredentialType> {
  const found = await repository.find(type, version);
  if (found) return found;
  if (await repository.hasType(type)) {
    throw notFound("Credential type version not found");
  }
  throw notFound("Credential type not found");
}
