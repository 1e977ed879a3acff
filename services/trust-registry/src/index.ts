export { buildApp } from "./app.js";
export * from "./config.js";
export { createDependencies } from "./dependencies.js";
export type { TrustRegistryDependencies } from "./domain/ports.js";
export { createTrustRegistryModule, type TrustRegistryModuleOptions, trustRegistry } from "./service.js";
