export { buildApp } from "./app.js";
export * from "./config.js";
export * from "./demo-wallet-provider.js";
export { type AuthServerDeps, createDependencies } from "./dependencies.js";
export { authServer } from "./service.js";
