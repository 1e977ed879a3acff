import type { JsonObject } from "./json.js";

/** Publication states of a credential type. Only `active` types are meant for new issuance. */
export const credentialTypeStatuses = ["active", "deprecated", "draft"] as const;
export type CredentialTypeStatus = (typeof credentialTypeStatuses)[number];

/**
 * How a wallet presents the type in one locale (SD-JWT VC type metadata `display`). `rendering`
 * keeps the standard's snake_case members (`simple.background_color`, `logo.alt_text`, ...) as is.
 */
export interface TypeDisplay {
  locale: string;
  name: string;
  description?: string;
  rendering?: JsonObject;
}

/** A claim's label in one locale. */
export interface ClaimLabel {
  locale: string;
  label: string;
  description?: string;
}

/** Labels for the claim at `path` of the credential subject. */
export interface ClaimDisplay {
  path: string[];
  display: ClaimLabel[];
}

/** A credential type as a seed defines it: everything except what the store adds. */
export interface CredentialTypeDefinition {
  /** Short name used in URLs, e.g. "university-diploma". */
  type: string;
  /** Version label used in URLs, e.g. "v1". */
  version: string;
  name: string;
  description: string;
  status: CredentialTypeStatus;
  useCase: string[];
  display: TypeDisplay[];
  claimDisplay: ClaimDisplay[];
  /** JSON Schema (2020-12) of the credential subject. */
  schema: JsonObject;
}

/** A stored credential type. */
export interface CredentialType extends CredentialTypeDefinition {
  /** SHA-256 of the definition; re-seeding identical content leaves the row untouched. */
  contentHash: string;
  createdAt: Date;
  /** Changes only when the definition's content changes. */
  updatedAt: Date;
}

/** The fields of a credential type a listing shows. */
export type CredentialTypeSummary = Pick<
  CredentialType,
  "type" | "version" | "name" | "status" | "createdAt" | "updatedAt"
>;
