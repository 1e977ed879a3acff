export { buildApp, registerIssuerRpc } from "./app.js";
export * from "./config.js";
export { createIssuerDeps, type IssuerDependencyOptions } from "./create-dependencies.js";
export type { IssuerDependencies } from "./domain/dependencies.js";
export { credentialIssuer } from "./service.js";
