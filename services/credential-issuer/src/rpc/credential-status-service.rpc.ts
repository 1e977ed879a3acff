import { credentialStatusV1 } from "@attesto/proto";
import type { ServiceImpl } from "@connectrpc/connect";
import type { IssuerDependencies } from "../domain/dependencies.js";
import { getCredentialStatus } from "../domain/get-credential-status.js";

const STATUS = {
  active: credentialStatusV1.CredentialStatus.ACTIVE,
  revoked: credentialStatusV1.CredentialStatus.REVOKED,
  // The RPC predates suspension and has no value for it; a suspended credential must not verify.
  suspended: credentialStatusV1.CredentialStatus.REVOKED,
  unknown: credentialStatusV1.CredentialStatus.UNKNOWN,
} as const;

/** attesto.issuance.v1.CredentialStatusService: revocation state of issued credentials, for the verifier. */
export class CredentialStatusServiceRpc implements ServiceImpl<typeof credentialStatusV1.CredentialStatusService> {
  constructor(private readonly deps: IssuerDependencies) {}

  async getCredentialStatus(request: credentialStatusV1.GetCredentialStatusRequest) {
    return { status: STATUS[await getCredentialStatus(this.deps, request.issuerJwtSha256)] };
  }
}
