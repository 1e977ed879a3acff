import type { issuanceV1 } from "@attesto/proto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { IssuerDependencies } from "../domain/ports.js";
import {
  checkIssuerActive,
  type RedeemedGrant,
  redeemIssuerState,
  redeemPreAuthorizedCode,
  resolveIssuerState,
} from "../domain/redeem-grant.js";

type Service = typeof issuanceV1.GrantService;
type GrantInit = MessageInitShape<typeof issuanceV1.GrantSchema>;

const toGrant = (grant: RedeemedGrant): GrantInit => ({
  offerId: grant.offerId,
  tenant: grant.tenant,
  credentialConfigurationIds: grant.credentialConfigurationIds,
  dpopRequired: grant.dpopRequired,
  claimPaths: grant.claimPaths.map((keys) => ({ keys })),
});

/**
 * attesto.issuance.v1.GrantService for the authorization server. Failures are AppErrors
 * (`invalid_grant` 400 -> INVALID_ARGUMENT with the error code header; unknown issuer_state 404).
 */
export class GrantServiceRpc implements ServiceImpl<Service> {
  constructor(private readonly deps: IssuerDependencies) {}

  async redeemPreAuthorizedCode(request: issuanceV1.RedeemPreAuthorizedCodeRequest) {
    const grant = await redeemPreAuthorizedCode(this.deps, {
      code: request.preAuthorizedCode,
      txCode: request.txCode,
      redemptionId: request.redemptionId,
    });
    return { grant: toGrant(grant) };
  }

  async resolveIssuerState(request: issuanceV1.ResolveIssuerStateRequest) {
    return { grant: toGrant(await resolveIssuerState(this.deps, request.issuerState)) };
  }

  async redeemIssuerState(request: issuanceV1.RedeemIssuerStateRequest) {
    return { grant: toGrant(await redeemIssuerState(this.deps, request.issuerState)) };
  }

  async checkIssuerActive(request: issuanceV1.CheckIssuerActiveRequest) {
    await checkIssuerActive(this.deps, request.tenant);
    return {};
  }
}
