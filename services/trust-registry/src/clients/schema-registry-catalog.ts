import type { schemaV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import type { CredentialTypeCatalog } from "../domain/ports.js";
import { upstreamError } from "./upstream-error.js";

/** The only status a tenant is provisioned from. */
const ACTIVE = "active";

/** The schema registry's SchemaService as the domain's credential type catalog. */
export function createSchemaRegistryCatalog(client: Client<typeof schemaV1.SchemaService>): CredentialTypeCatalog {
  return {
    async listActive() {
      try {
        const { credentialTypes } = await client.listCredentialTypes({ status: ACTIVE });
        return credentialTypes
          .filter((type) => type.status === "" || type.status === ACTIVE)
          .map(({ type, version, vct }) => ({ type, version, vct }));
      } catch (error) {
        throw upstreamError(error, "Schema registry");
      }
    },
  };
}
