import type { JsonObject } from "./json.js";

/** Publication states of a credential type. Only `active` types are meant for new issuance. */
export const credentialTypeStatuses = ["active", "deprecated", "draft"] as const;
export type CredentialTypeStatus = (typeof credentialTypeStatuses)[number];

/** Credential formats a type can be issued in (OID4VCI 1.0 Appendix A). `dc+sd-jwt` is the default. */
export const credentialFormats = ["dc+sd-jwt", "mso_mdoc"] as const;
export type CredentialFormat = (typeof credentialFormats)[number];

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
  /**
   * JSON Schema (2020-12) of the credential subject. For an mdoc type: one property per namespace,
   * each an object schema whose properties are the namespace's data elements.
   */
  schema: JsonObject;
  /** Set only for mdoc types (absent means `dc+sd-jwt`, so SD-JWT types keep their content hash). */
  format?: "mso_mdoc";
  /** The ISO 18013-5 document type of an mdoc type, e.g. "org.iso.18013.5.1.mDL". */
  doctype?: string;
}

/** The format of a type: `mso_mdoc` for mdoc types, `dc+sd-jwt` otherwise. */
export const formatOf = (definition: Pick<CredentialTypeDefinition, "format">): CredentialFormat =>
  definition.format ?? "dc+sd-jwt";

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
> & { format: CredentialFormat };
