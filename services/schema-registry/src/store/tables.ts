import type { Generated } from "kysely";
import type { ClaimDisplay, CredentialTypeStatus, TypeDisplay } from "../domain/credential-type.js";
import type { JsonObject } from "../domain/json.js";

/** Row of `credential_types`; json/jsonb columns are written as JSON text and read back parsed. */
export interface CredentialTypesTable {
  type: string;
  version: string;
  name: string;
  description: string;
  status: CredentialTypeStatus;
  use_case: string[];
  display: TypeDisplay[];
  claim_display: ClaimDisplay[];
  schema: JsonObject;
  /** `dc+sd-jwt` or `mso_mdoc` (0002). */
  format: Generated<string>;
  /** The mdoc document type; null for SD-JWT VC types (0002). */
  doctype: string | null;
  content_hash: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface SchemaRegistryTables {
  credential_types: CredentialTypesTable;
}
