import type { Migrations } from "@attesto/store";
import { createCredentialTypes } from "./0001-credential-types.js";
import { addCredentialFormats } from "./0002-credential-formats.js";

/** Migrations of the schema_registry schema, applied in name order at start-up. */
export const migrations: Migrations = {
  "0001_credential_types": createCredentialTypes,
  "0002_credential_formats": addCredentialFormats,
};
