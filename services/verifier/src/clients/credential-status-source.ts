import { credentialStatusV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import { type CredentialStatusSource, UpstreamUnavailableError } from "../domain/upstream.js";

/** Revocation state through the credential issuer's CredentialStatusService. */
export function createCredentialStatusSource(
  issuer: Client<typeof credentialStatusV1.CredentialStatusService>,
): CredentialStatusSource {
  return {
    async statusOf(issuerJwtSha256) {
      let response: credentialStatusV1.GetCredentialStatusResponse;
      try {
        response = await issuer.getCredentialStatus({ issuerJwtSha256 });
      } catch (error) {
        throw new UpstreamUnavailableError("credential issuer GetCredentialStatus failed", { cause: error });
      }
      switch (response.status) {
        case credentialStatusV1.CredentialStatus.ACTIVE:
          return "active";
        case credentialStatusV1.CredentialStatus.REVOKED:
          return "revoked";
        default:
          return "unknown";
      }
    },
  };
}
