export { buildApp, registerVerifierRpc } from "./app.js";
export * from "./config.js";
export { createVerifierDeps } from "./create-dependencies.js";
export type { VerifierDependencies } from "./domain/dependencies.js";
export { verifier } from "./service.js";
