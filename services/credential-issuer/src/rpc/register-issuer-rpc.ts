import { issuanceV1, issuerConfigurationV1 } from "@attesto/proto";
import type { ConnectRouter } from "@connectrpc/connect";
import type { IssuerDependencies } from "../domain/ports.js";
import { GrantServiceRpc } from "./grant-service.rpc.js";
import { IssuerServiceRpc } from "./issuer-service.rpc.js";

/** The internal API: GrantService (authorization server), IssuerService (operator). */
export function registerIssuerRpc(router: ConnectRouter, deps: IssuerDependencies): void {
  router.service(issuanceV1.GrantService, new GrantServiceRpc(deps));
  router.service(issuerConfigurationV1.IssuerService, new IssuerServiceRpc(deps));
}
