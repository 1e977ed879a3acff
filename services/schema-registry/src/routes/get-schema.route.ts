import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { createTypeMetadataDocument } from "../domain/create-type-metadata-document.js";
import { credentialTypeStatuses } from "../domain/credential-type.js";
import { findCredentialType } from "../domain/find-credential-type.js";
import type { SchemaRegistryDependencies } from "../domain/ports.js";

const zTypeVersionParams = z.object({
  type: z.string().min(1).max(100, "must be at most 100 characters"),
  version: z.string().min(1).max(50, "must be at most 50 characters"),
});

const zLabel = z.object({ locale: z.string(), label: z.string(), description: z.string().optional() });

const zTypeMetadataDocument = z.object({
  vct: z.string(),
  name: z.string(),
  description: z.string(),
  display: z.array(
    z.object({
      locale: z.string(),
      name: z.string(),
      description: z.string().optional(),
      rendering: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  status: z.enum(credentialTypeStatuses),
  use_case: z.array(z.string()),
  claims: z.array(z.object({ path: z.array(z.string()), mandatory: z.boolean(), display: z.array(zLabel).optional() })),
  schema: z.record(z.string(), z.unknown()),
  updated_at: z.string(),
});

/** GET /schemas/:type/:version: the credential type's metadata document (its vct URL). */
export function registerGetSchemaRoute(app: App, { repository, registryUrl }: SchemaRegistryDependencies): void {
  app.get(
    "/schemas/:type/:version",
    { schema: { params: zTypeVersionParams, response: { 200: zTypeMetadataDocument } } },
    async (request) => {
      const credentialType = await findCredentialType(repository, request.params);
      return createTypeMetadataDocument(credentialType, registryUrl);
    },
  );
}
