import {
  type ClaimLabel,
  type CredentialFormat,
  type CredentialType,
  type CredentialTypeStatus,
  formatOf,
  type TypeDisplay,
} from "./credential-type.js";
import { deriveClaims } from "./derive-claims.js";
import type { JsonObject } from "./json.js";
import { createVctUrl } from "./vct-url.js";

/**
 * The SD-JWT VC type metadata document of a credential type, served at its
 * vct URL and carried by the internal API. `status`, `use_case`, `schema` and `updated_at` are
 * registry extensions; the rest follows the SD-JWT VC type metadata members.
 */
export interface TypeMetadataDocument {
  vct: string;
  name: string;
  description: string;
  display: TypeDisplay[];
  status: CredentialTypeStatus;
  use_case: string[];
  claims: Array<{ path: string[]; mandatory: boolean; display?: ClaimLabel[] }>;
  schema: JsonObject;
  /** Registry extension, mdoc types only (absent means `dc+sd-jwt`, as before mdoc types existed). */
  format?: CredentialFormat;
  /** Registry extension, mdoc types only: the ISO 18013-5 document type. */
  doctype?: string;
  updated_at: string;
}

/** The claims of a type; an mdoc type's are its data elements, `[namespace, element]` (OID4VCI A.2). */
function claimsOf(credentialType: CredentialType) {
  const claims = deriveClaims(credentialType.schema, credentialType.claimDisplay);
  return formatOf(credentialType) === "mso_mdoc" ? claims.filter((claim) => claim.path.length === 2) : claims;
}

export function createTypeMetadataDocument(credentialType: CredentialType, registryUrl: string): TypeMetadataDocument {
  return {
    vct: createVctUrl(registryUrl, credentialType),
    name: credentialType.name,
    description: credentialType.description,
    display: credentialType.display,
    status: credentialType.status,
    use_case: credentialType.useCase,
    claims: claimsOf(credentialType),
    schema: credentialType.schema,
    ...(credentialType.format === "mso_mdoc" ? { format: credentialType.format, doctype: credentialType.doctype } : {}),
    updated_at: credentialType.updatedAt.toISOString(),
  };
}
