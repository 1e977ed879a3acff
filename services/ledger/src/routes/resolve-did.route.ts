import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { zDidDocument } from "../domain/did-document.js";
import type { LedgerDependencies } from "../domain/ports.js";
import { resolveDid } from "../domain/resolve-did.js";

/** The DID Resolution result media type (W3C DID Resolution; what the DIF universal resolver answers). */
export const DID_RESOLUTION_CONTENT_TYPE =
  'application/ld+json;profile="https://w3id.org/did-resolution";charset=utf-8';

// The router already refuses path parameters over 100 characters (414); a did:ledger DID has at most 33.
const zParams = z.object({ did: z.string().min(1).max(100, "must be at most 100 characters") });

const zResolutionResult = z.object({
  didDocument: zDidDocument,
  didDocumentMetadata: z.object({
    created: z.string(),
    updated: z.string(),
    deactivated: z.boolean().optional(),
  }),
  didResolutionMetadata: z.object({ contentType: z.literal("application/did+ld+json") }),
});

/**
 * GET /1.0/identifiers/:did: resolves a did:ledger DID the way the DIF universal resolver does,
 * so off-the-shelf resolvers and verifiers can use the ledger as a driver. 400 for a DID that is
 * not did:ledger, 404 when unknown. A deactivated DID still resolves, flagged in its metadata.
 */
export function registerResolveDidRoute(app: App, dependencies: LedgerDependencies): void {
  app.get(
    "/1.0/identifiers/:did",
    {
      schema: { params: zParams, response: { 200: zResolutionResult } },
      config: { answers: [404], produces: DID_RESOLUTION_CONTENT_TYPE },
    },
    async (request, reply) => {
      const record = await resolveDid(dependencies, request.params.did);
      reply.type(DID_RESOLUTION_CONTENT_TYPE);
      return {
        didDocument: record.document,
        didDocumentMetadata: {
          created: record.createdAt.toISOString(),
          updated: record.updatedAt.toISOString(),
          ...(record.deactivated ? { deactivated: true } : {}),
        },
        didResolutionMetadata: { contentType: "application/did+ld+json" as const },
      };
    },
  );
}
