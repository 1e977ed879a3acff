import { tokenStatusV1 } from "@attesto/proto";
import type { ConnectRouter } from "@connectrpc/connect";
import type { AuthorizationCodeRepository } from "../domain/ports.js";
import { TokenStatusServiceRpc } from "./token-status-service.rpc.js";

/** The auth server's internal Connect services (its internal port). */
export function registerAuthServerRpc(
  router: ConnectRouter,
  deps: { authorizationCodes: Pick<AuthorizationCodeRepository, "isAccessTokenRevoked"> },
): void {
  router.service(tokenStatusV1.TokenStatusService, new TokenStatusServiceRpc(deps.authorizationCodes));
}
