import { schemaV1 } from "@attesto/proto";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { createTypeMetadataDocument } from "../domain/create-type-metadata-document.js";
import type { CredentialType } from "../domain/credential-type.js";

/** The wire message of a credential type; `metadata` is the document GET /schemas/:type/:version serves. */
export function toCredentialTypeMessage(credentialType: CredentialType, registryUrl: string): schemaV1.CredentialType {
  const document = createTypeMetadataDocument(credentialType, registryUrl);
  return create(schemaV1.CredentialTypeSchema, {
    type: credentialType.type,
    version: credentialType.version,
    vct: document.vct,
    name: document.name,
    description: document.description,
    status: document.status,
    useCase: document.use_case,
    claims: document.claims.map((claim) => ({ path: claim.path, mandatory: claim.mandatory })),
    schema: document.schema,
    format: document.format ?? "dc+sd-jwt",
    doctype: document.doctype ?? "",
    // A JSON round trip turns the typed document into the plain JSON object a Struct holds.
    metadata: JSON.parse(JSON.stringify(document)) as JsonObject,
    createdAt: timestampFromDate(credentialType.createdAt),
    updatedAt: timestampFromDate(credentialType.updatedAt),
  });
}
