import type { CredentialType, CredentialTypeDefinition, CredentialTypeStatus } from "./credential-type.js";
import type { CredentialTypePage, CredentialTypeQuery, UpsertOutcome } from "./credential-type-query.js";

/** Where credential types are kept (implemented in store/). */
export interface CredentialTypeRepository {
  /**
   * Inserts or replaces the (type, version) row; a row with the same content hash is left untouched.
   * With `keepSchema`, a row whose schema differs is left untouched too (`unchanged` is then also
   * the answer for it: the caller tells the two apart by the stored content hash).
   */
  upsert(
    definition: CredentialTypeDefinition,
    contentHash: string,
    options?: { keepSchema?: boolean },
  ): Promise<UpsertOutcome>;
  find(type: string, version: string): Promise<CredentialType | undefined>;
  /** Whether any version of `type` exists. */
  hasType(type: string): Promise<boolean>;
  list(query: CredentialTypeQuery): Promise<CredentialTypePage>;
  /** Every credential type with all fields, by type then version. */
  listAll(filter: { status?: CredentialTypeStatus }): Promise<CredentialType[]>;
}

/** What routes, RPC handlers and start-up work with, built once per service context. */
export interface SchemaRegistryDependencies {
  repository: CredentialTypeRepository;
  /** Public URL of this registry, without a trailing slash: the base of every vct. */
  registryUrl: string;
}
