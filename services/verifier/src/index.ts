export { buildApp } from "./app.js";
export * from "./config.js";
export { createDependencies } from "./dependencies.js";
export type { VerifierDependencies } from "./domain/ports.js";
export { registerVerifierRpc } from "./rpc/register-verifier-rpc.js";
export { verifier } from "./service.js";
