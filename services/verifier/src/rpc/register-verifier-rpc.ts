import { verifierPolicyV1 } from "@attesto/proto";
import type { ConnectRouter } from "@connectrpc/connect";
import type { VerifierDependencies } from "../domain/ports.js";
import { VerifierPolicyServiceRpc } from "./verifier-policy-service.rpc.js";

/** The internal API: VerifierPolicyService (operator). */
export function registerVerifierRpc(router: ConnectRouter, deps: VerifierDependencies): void {
  router.service(verifierPolicyV1.VerifierPolicyService, new VerifierPolicyServiceRpc(deps));
}
