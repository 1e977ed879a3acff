import type { CredentialFormat, CredentialTypeStatus, CredentialTypeSummary } from "./credential-type.js";

/** What the catalogue is asked (a page, sorted) and what a write answers; the repository is in ports.ts. */
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
