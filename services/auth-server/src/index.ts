export { buildApp } from "./app.js";
export * from "./config.js";
export * from "./demo-wallet-provider.js";
export { createDependencies } from "./dependencies.js";
export type { AuthServerDependencies } from "./domain/ports.js";
export { authServer } from "./service.js";
