import type { schemaV1 } from "@attesto/proto";
import { badRequest, notFound } from "@attesto/runtime/errors";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { type CredentialTypeStatus, credentialTypeStatuses } from "../domain/credential-type.js";
import { findCredentialType } from "../domain/find-credential-type.js";
import type { SchemaRegistryDependencies } from "../domain/ports.js";
import { putCredentialType } from "../domain/put-credential-type.js";
import { parseVctUrl, type TypeVersion } from "../domain/vct-url.js";
import { toCredentialTypeMessage } from "./to-credential-type-message.js";

type Service = typeof schemaV1.SchemaService;

const isStatus = (value: string): value is CredentialTypeStatus =>
  (credentialTypeStatuses as readonly string[]).includes(value);

/** attesto.schema.v1.SchemaService: credential types for the issuer and the trust registry; new ones from the operator. */
export class SchemaServiceRpc implements ServiceImpl<Service> {
  constructor(private readonly dependencies: SchemaRegistryDependencies) {}

  async getCredentialType(
    request: schemaV1.GetCredentialTypeRequest,
  ): Promise<MessageInitShape<typeof schemaV1.GetCredentialTypeResponseSchema>> {
    const { repository, registryUrl } = this.dependencies;
    const credentialType = await findCredentialType(repository, this.selectedTypeVersion(request));
    return { credentialType: toCredentialTypeMessage(credentialType, registryUrl) };
  }

  async listCredentialTypes(
    request: schemaV1.ListCredentialTypesRequest,
  ): Promise<MessageInitShape<typeof schemaV1.ListCredentialTypesResponseSchema>> {
    const { repository, registryUrl } = this.dependencies;
    if (request.status !== "" && !isStatus(request.status)) {
      throw badRequest(`status must be one of ${credentialTypeStatuses.join(", ")}`);
    }
    const credentialTypes = await repository.listAll({ status: request.status || undefined });
    return { credentialTypes: credentialTypes.map((type) => toCredentialTypeMessage(type, registryUrl)) };
  }

  async putCredentialType(
    request: schemaV1.PutCredentialTypeRequest,
  ): Promise<MessageInitShape<typeof schemaV1.PutCredentialTypeResponseSchema>> {
    const { repository, registryUrl } = this.dependencies;
    const { outcome, credentialType } = await putCredentialType(repository, request.definitionJson);
    return { outcome, credentialType: toCredentialTypeMessage(credentialType, registryUrl) };
  }

  private selectedTypeVersion({ selector }: schemaV1.GetCredentialTypeRequest): TypeVersion {
    switch (selector.case) {
      case "typeVersion": {
        const { type, version } = selector.value;
        if (!type || !version) throw badRequest("type_version needs both type and version");
        return { type, version };
      }
      case "vct": {
        const typeVersion = parseVctUrl(this.dependencies.registryUrl, selector.value);
        if (!typeVersion) throw notFound("the vct is not a credential type of this registry");
        return typeVersion;
      }
      default:
        throw badRequest("selector is required: type_version or vct");
    }
  }
}
