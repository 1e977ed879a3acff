import type { ClaimLabel, CredentialType, CredentialTypeStatus, TypeDisplay } from "./credential-type.js";
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
  updated_at: string;
}

export function createTypeMetadataDocument(credentialType: CredentialType, registryUrl: string): TypeMetadataDocument {
  return {
    vct: createVctUrl(registryUrl, credentialType),
    name: credentialType.name,
    description: credentialType.description,
    display: credentialType.display,
    status: credentialType.status,
    use_case: credentialType.useCase,
    claims: deriveClaims(credentialType.schema, credentialType.claimDisplay),
    schema: credentialType.schema,
    updated_at: credentialType.updatedAt.toISOString(),
  };
}
