// `@attesto/runtime/rpc`: the internal RPC server, clients, caller policy and service identities.
export { allowedCallers, CALLER_POLICY, callerKey } from "./caller-policy.js";
export { clientInterceptors, createRpcClient, type RpcClientOptions } from "./client.js";
export { fromRpcError, rpcErrorCodeOf, toConnectError } from "./error-mapping.js";
export { enableInProcessRpc } from "./in-process.js";
export { type InternalServer, serverInterceptors, startInternalServer } from "./server.js";
export {
  createServiceCredentialSigner,
  createServiceCredentialVerifier,
  type ServiceCredentialSigner,
  type ServiceCredentialVerifier,
} from "./service-credential.js";
export {
  generateServiceIdentities,
  generateServiceIdentityKey,
  parseServiceIdentityKey,
  parseServiceIdentityPublicKeys,
  SERVICE_IDENTITIES,
  type ServiceIdentity,
  serviceIdentityPublicKeys,
} from "./service-identity.js";
