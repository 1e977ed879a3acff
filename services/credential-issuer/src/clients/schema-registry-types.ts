import type { schemaV1 } from "@attesto/proto";
import { createLoadingCache } from "@attesto/runtime/cache";
import { fromRpcError } from "@attesto/runtime/rpc";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { CredentialTypeCatalog, CredentialTypeInfo } from "../domain/ports.js";

/** How long a credential type (schema, display) is reused before asking the schema registry again. */
const TYPE_CACHE_TTL_MS = 60_000;
/** Credential types remembered at once (the least recently used goes first). */
const CACHED_TYPES = 1_000;

/** Credential types from SchemaService.GetCredentialType by vct (schema registry). */
export function createSchemaRegistryTypes(client: Client<typeof schemaV1.SchemaService>): CredentialTypeCatalog {
  const cache = createLoadingCache<CredentialTypeInfo | undefined>({ max: CACHED_TYPES, ttlMs: TYPE_CACHE_TTL_MS });
  const load = async (vct: string): Promise<CredentialTypeInfo | undefined> => {
    try {
      const { credentialType } = await client.getCredentialType({ selector: { case: "vct", value: vct } });
      if (!credentialType) return undefined;
      return {
        vct: credentialType.vct,
        name: credentialType.name,
        ...(credentialType.format === "mso_mdoc"
          ? { format: "mso_mdoc" as const, doctype: credentialType.doctype }
          : { format: "dc+sd-jwt" as const }),
        schema: credentialType.schema ?? {},
        metadata: credentialType.metadata ?? {},
      };
    } catch (error) {
      if (ConnectError.from(error).code === Code.NotFound) return undefined;
      throw fromRpcError(error, "Schema registry");
    }
  };
  return { findByVct: (vct) => cache.get(vct, () => load(vct)) };
}
