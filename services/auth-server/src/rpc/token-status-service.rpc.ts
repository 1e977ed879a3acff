import type { tokenStatusV1 } from "@attesto/proto";
import { AppError } from "@attesto/runtime/errors";
import type { ServiceImpl } from "@connectrpc/connect";
import type { AuthorizationCodeRepository } from "../domain/ports.js";

/** Longer than any jti this server mints (UUIDs): anything beyond is not one of its tokens. */
const MAX_JTI_LENGTH = 255;

/**
 * attesto.auth.v1.TokenStatusService, for the credential issuer: whether an access token was revoked
 * (its authorization code was replayed). Read only; unknown jtis are not revoked.
 */
export class TokenStatusServiceRpc implements ServiceImpl<typeof tokenStatusV1.TokenStatusService> {
  constructor(private readonly codes: Pick<AuthorizationCodeRepository, "isAccessTokenRevoked">) {}

  async getTokenStatus(request: tokenStatusV1.GetTokenStatusRequest) {
    if (request.jti.length === 0 || request.jti.length > MAX_JTI_LENGTH) {
      throw new AppError(400, "invalid_request", `jti must be 1 to ${MAX_JTI_LENGTH} characters`);
    }
    return { revoked: await this.codes.isAccessTokenRevoked(request.jti) };
  }
}
