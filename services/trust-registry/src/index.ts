export { buildApp } from "./app.js";
export * from "./config.js";
export { createTrustRegistryDeps, type TrustRegistryDeps } from "./dependencies.js";
export { trustRegistry } from "./service.js";
