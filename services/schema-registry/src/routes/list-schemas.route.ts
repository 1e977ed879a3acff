import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { credentialFormats, credentialTypeStatuses } from "../domain/credential-type.js";
import { credentialTypeSortKeys } from "../domain/credential-type-query.js";
import type { SchemaRegistryDependencies } from "../domain/ports.js";
import { zQueryEnum, zQueryInteger, zQueryText } from "./query-parameters.js";

export const DEFAULT_LIST_LIMIT = 20;
export const MAX_LIST_LIMIT = 100;

const zListSchemasQuery = z.object({
  status: zQueryEnum(credentialTypeStatuses).optional(),
  format: zQueryEnum(credentialFormats).optional(),
  type: zQueryText(100).optional(),
  name: zQueryText(200).optional(),
  sort_by: zQueryEnum(credentialTypeSortKeys).default("updated_at"),
  offset: zQueryInteger(0, Number.MAX_SAFE_INTEGER).default(0),
  limit: zQueryInteger(1, MAX_LIST_LIMIT).default(DEFAULT_LIST_LIMIT),
});

const zListSchemasResponse = z.object({
  data: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      version: z.string(),
      status: z.enum(credentialTypeStatuses),
      format: z.enum(credentialFormats),
      updated_at: z.string(),
    }),
  ),
  meta: z.object({ offset: z.number().int(), limit: z.number().int(), total: z.number().int() }),
});

/** GET /schemas: the catalogue, filtered and paged, newest first. */
export function registerListSchemasRoute(app: App, { repository }: SchemaRegistryDependencies): void {
  app.get(
    "/schemas",
    { schema: { querystring: zListSchemasQuery, response: { 200: zListSchemasResponse } } },
    async (request) => {
      const query = request.query;
      const page = await repository.list({
        status: query.status,
        format: query.format,
        typeContains: query.type,
        nameContains: query.name,
        sortBy: query.sort_by,
        offset: query.offset,
        limit: query.limit,
      });
      return {
        data: page.items.map((item) => ({
          name: item.name,
          type: item.type,
          version: item.version,
          status: item.status,
          format: item.format,
          updated_at: item.updatedAt.toISOString(),
        })),
        meta: { offset: query.offset, limit: query.limit, total: page.total },
      };
    },
  );
}
