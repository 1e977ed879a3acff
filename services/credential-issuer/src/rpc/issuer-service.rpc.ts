import { issuerConfigurationV1 } from "@attesto/proto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  applyIssuerConfiguration,
  deleteIssuerConfiguration,
  getIssuerConfiguration,
  type IssuerConfigurationInput,
} from "../domain/apply-issuer-configuration.js";
import type { CredentialDisplay, IssuerConfiguration } from "../domain/issuer-configuration.js";
import type { IssuerDependencies } from "../domain/ports.js";

type Service = typeof issuerConfigurationV1.IssuerService;
type ConfigurationInit = MessageInitShape<typeof issuerConfigurationV1.IssuerConfigurationSchema>;

const { SigningMode } = issuerConfigurationV1;

const SIGNING_MODE_FROM_WIRE: Record<number, IssuerConfigurationInput["signingMode"]> = {
  [SigningMode.UNSPECIFIED]: "unspecified",
  [SigningMode.DID]: "did",
  [SigningMode.X509]: "x509",
};
const SIGNING_MODE_TO_WIRE = { did: SigningMode.DID, x509: SigningMode.X509 } as const;

function toInput(configuration: issuerConfigurationV1.IssuerConfiguration | undefined): IssuerConfigurationInput {
  return {
    tenant: configuration?.tenant ?? "",
    issuerName: configuration?.issuerName ?? "",
    credentialConfigurations: (configuration?.credentialConfigurations ?? []).map((c) => ({
      id: c.id,
      display: c.display.map((d) => ({
        name: d.name,
        locale: d.locale,
        description: d.description,
        backgroundColor: d.backgroundColor,
        textColor: d.textColor,
        logoUri: d.logoUri,
        logoAltText: d.logoAltText,
      })),
    })),
    // An enum value this service does not know fails validation (naming signing_mode).
    signingMode: SIGNING_MODE_FROM_WIRE[configuration?.signingMode ?? 0] ?? ("unknown" as never),
    signingKeyId: configuration?.signingKeyId ?? "",
    defaultOfferTtlSeconds: configuration?.defaultOfferTtlSeconds ?? 0,
    statusListSize: configuration?.statusListSize ?? 0,
  };
}

const toWireDisplay = (display: CredentialDisplay) => ({
  name: display.name,
  locale: display.locale ?? "",
  description: display.description ?? "",
  backgroundColor: display.background_color ?? "",
  textColor: display.text_color ?? "",
  logoUri: display.logo?.uri ?? "",
  logoAltText: display.logo?.alt_text ?? "",
});

function toWire(configuration: IssuerConfiguration): ConfigurationInit {
  return {
    tenant: configuration.tenant,
    issuerName: configuration.issuerName,
    credentialConfigurations: configuration.credentialConfigurations.map((c) => ({
      id: c.id,
      display: c.display.map(toWireDisplay),
    })),
    signingMode: configuration.signingMode ? SIGNING_MODE_TO_WIRE[configuration.signingMode] : SigningMode.UNSPECIFIED,
    signingKeyId: configuration.signingKeyId ?? "",
    defaultOfferTtlSeconds: configuration.defaultOfferTtlSeconds ?? 0,
    statusListSize: configuration.statusListSize ?? 0,
    digest: configuration.digest,
    updatedAt: configuration.updatedAt.toISOString(),
  };
}

/**
 * attesto.issuance.v1.IssuerService: tenants' issuer configurations, written by the operator
 * (who may call it: the runtime's caller policy). Failures are AppErrors (400 -> INVALID_ARGUMENT
 * naming the field, 404 -> NOT_FOUND).
 */
export class IssuerServiceRpc implements ServiceImpl<Service> {
  constructor(private readonly deps: IssuerDependencies) {}

  async applyIssuerConfiguration(request: issuerConfigurationV1.ApplyIssuerConfigurationRequest) {
    const applied = await applyIssuerConfiguration(this.deps, toInput(request.configuration));
    return { configuration: toWire(applied.configuration), changed: applied.changed };
  }

  async deleteIssuerConfiguration(request: issuerConfigurationV1.DeleteIssuerConfigurationRequest) {
    return { deleted: await deleteIssuerConfiguration(this.deps, request.tenant) };
  }

  async getIssuerConfiguration(request: issuerConfigurationV1.GetIssuerConfigurationRequest) {
    return { configuration: toWire(await getIssuerConfiguration(this.deps, request.tenant)) };
  }
}
