export { buildApp } from "./app.js";
export * from "./config.js";
export { createDependencies } from "./dependencies.js";
export { walletProviderKid } from "./domain/oid4vci/wallet-attestation.js";
export { holder } from "./service.js";
