export { buildApp } from "./app.js";
export * from "./config.js";
export { createDependencies } from "./dependencies.js";
export type { IssuerDependencies } from "./domain/ports.js";
export { registerIssuerRpc } from "./rpc/register-issuer-rpc.js";
export { credentialIssuer } from "./service.js";
