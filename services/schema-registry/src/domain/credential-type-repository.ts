import type {
  CredentialFormat,
  CredentialType,
  CredentialTypeDefinition,
  CredentialTypeStatus,
  CredentialTypeSummary,
} from "./credential-type.js";

export const credentialTypeSortKeys = ["updated_at", "created_at"] as const;
export type CredentialTypeSortKey = (typeof credentialTypeSortKeys)[number];

/** A page of the catalogue. Text filters match anywhere in the value, ignoring case. */
export interface CredentialTypeQuery {
  status?: CredentialTypeStatus;
  format?: CredentialFormat;
  typeContains?: string;
  nameContains?: string;
  /** Newest first by this timestamp; ties by type, then version. */
  sortBy: CredentialTypeSortKey;
  offset: number;
  limit: number;
}

export interface CredentialTypePage {
  items: CredentialTypeSummary[];
  /** Number of matches, ignoring offset and limit. */
  total: number;
}

export type UpsertOutcome = "created" | "updated" | "unchanged";

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
