import type { issuanceV1 } from "@attesto/proto";
import { AppError, InvalidGrant, Unavailable } from "@attesto/runtime/errors";
import { fromRpcError } from "@attesto/runtime/rpc";
import type { Client } from "@connectrpc/connect";
import type { Grant } from "../domain/grant.js";
import type { GrantRedeemer } from "../domain/ports.js";

export type GrantServiceClient = Client<typeof issuanceV1.GrantService>;

const DEFAULT_INVALID_GRANT = "pre-authorized code is invalid, expired or already used";
const DEFAULT_INVALID_ISSUER_STATE = "issuer_state is invalid, expired or already used";
const DEFAULT_INACTIVE_ISSUER = "the credential issuer is no longer active";
/** Statuses by which the issuer says "this grant cannot be redeemed". */
const NOT_REDEEMABLE = new Set([400, 404, 410]);

/**
 * A GrantService failure -> what the authorization server answers: `invalid_grant` for a grant that
 * cannot be redeemed, 503 when the issuer is unreachable, and a 500 for anything else (such as
 * a refused service credential: a deployment fault the client cannot fix).
 */
function toGrantFailure(error: unknown, defaultDescription: string): AppError {
  const failure = fromRpcError(error, "credential issuer");
  if (failure.status === 503) return new Unavailable("credential issuer is unavailable", { cause: error });
  if (failure.code === "invalid_grant")
    return new InvalidGrant(failure.message || defaultDescription, { cause: error });
  if (NOT_REDEEMABLE.has(failure.status)) return new InvalidGrant(defaultDescription, { cause: error });
  return new AppError(500, "server_error", "credential issuer failed to redeem the grant", { cause: error });
}

function grantOf(grant: issuanceV1.Grant | undefined): Grant {
  if (!grant?.offerId || !grant.tenant) {
    throw new AppError(500, "server_error", "credential issuer answered without a grant");
  }
  return {
    offerId: grant.offerId,
    tenant: grant.tenant,
    credentialConfigurationIds: [...grant.credentialConfigurationIds],
    dpopRequired: grant.dpopRequired,
    claimPaths: grant.claimPaths.map((path) => [...path.keys]),
  };
}

/** The credential issuer's GrantService as the authorization server's GrantRedeemer. */
export function createGrantRedeemer(client: GrantServiceClient): GrantRedeemer {
  return {
    async redeemPreAuthorizedCode({ preAuthorizedCode, txCode, redemptionId }) {
      let response: issuanceV1.RedeemPreAuthorizedCodeResponse;
      try {
        response = await client.redeemPreAuthorizedCode({ preAuthorizedCode, txCode: txCode ?? "", redemptionId });
      } catch (error) {
        throw toGrantFailure(error, DEFAULT_INVALID_GRANT);
      }
      return grantOf(response.grant);
    },

    async resolveIssuerState(issuerState) {
      let response: issuanceV1.ResolveIssuerStateResponse;
      try {
        response = await client.resolveIssuerState({ issuerState });
      } catch (error) {
        const failure = toGrantFailure(error, DEFAULT_INVALID_ISSUER_STATE);
        // NOT_FOUND (unknown or expired) and INVALID_ARGUMENT: no live offer has this issuer_state.
        if (failure instanceof InvalidGrant) return undefined;
        throw failure;
      }
      return grantOf(response.grant);
    },

    async redeemIssuerState(issuerState) {
      let response: issuanceV1.RedeemIssuerStateResponse;
      try {
        response = await client.redeemIssuerState({ issuerState });
      } catch (error) {
        throw toGrantFailure(error, DEFAULT_INVALID_ISSUER_STATE);
      }
      return grantOf(response.grant);
    },

    async checkIssuerActive(tenant) {
      try {
        await client.checkIssuerActive({ tenant });
      } catch (error) {
        throw toGrantFailure(error, DEFAULT_INACTIVE_ISSUER);
      }
    },
  };
}
