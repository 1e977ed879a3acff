export { buildApp } from "./app.js";
export * from "./config.js";
export { createDependencies, type TrustRegistryDeps } from "./dependencies.js";
export { createTrustRegistryModule, type TrustRegistryModuleOptions, trustRegistry } from "./service.js";
