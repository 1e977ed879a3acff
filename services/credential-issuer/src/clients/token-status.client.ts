import type { tokenStatusV1 } from "@attesto/proto";
import { AppError, TemporarilyUnavailable } from "@attesto/runtime/errors";
import { fromRpcError } from "@attesto/runtime/rpc";
import type { Client } from "@connectrpc/connect";
import type { AccessTokenStatus } from "../domain/ports.js";

export type TokenStatusServiceClient = Client<typeof tokenStatusV1.TokenStatusService>;

/**
 * The authorization server's TokenStatusService as the issuer's AccessTokenStatus. An unreachable
 * or timed-out authorization server is 503 `temporarily_unavailable` (OAuth shape: the client may
 * retry); any other failure (e.g. a refused service credential, a deployment fault) is a 500.
 */
export function createAccessTokenStatus(client: TokenStatusServiceClient): AccessTokenStatus {
  return {
    async isRevoked(jti) {
      try {
        return (await client.getTokenStatus({ jti })).revoked;
      } catch (error) {
        const failure = fromRpcError(error, "authorization server");
        if (failure.status === 503) {
          throw new TemporarilyUnavailable("authorization server is unavailable: try again later", { cause: error });
        }
        throw new AppError(500, "server_error", "authorization server failed to report the token status", {
          cause: error,
        });
      }
    },
  };
}
