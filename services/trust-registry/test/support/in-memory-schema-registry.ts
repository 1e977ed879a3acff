import { schemaV1 } from "@attesto/proto";
import type { ConnectRouter } from "@connectrpc/connect";

export interface CredentialTypeRow {
  type: string;
  version: string;
  status: string;
}

export const SCHEMA_REGISTRY_URL = "http://localhost:8086";

/** The registered types every test registry starts with (a draft type that must not be provisioned). */
export const DEFAULT_CREDENTIAL_TYPES: CredentialTypeRow[] = [
  { type: "university-diploma", version: "v1", status: "active" },
  { type: "university-diploma", version: "v2", status: "active" },
  { type: "employee-badge", version: "v1", status: "active" },
  { type: "loyalty-card", version: "v1", status: "draft" },
];

export const vctOf = (type: string, version: string) => `${SCHEMA_REGISTRY_URL}/schemas/${type}/${version}`;

/** A test double of the schema registry's SchemaService (an external edge of the trust registry). */
export class InMemorySchemaRegistry {
  readonly requests: string[] = [];
  constructor(readonly types: CredentialTypeRow[] = [...DEFAULT_CREDENTIAL_TYPES]) {}

  routes = (router: ConnectRouter) => {
    router.service(schemaV1.SchemaService, {
      listCredentialTypes: (request) => {
        this.requests.push(request.status);
        return {
          credentialTypes: this.types
            .filter((row) => request.status === "" || row.status === request.status)
            .map((row) => ({ ...row, vct: vctOf(row.type, row.version), name: row.type })),
        };
      },
    });
  };
}
