export { buildApp } from "./app.js";
export * from "./config.js";
export { createHolderDeps, type HolderDependencyOptions } from "./create-dependencies.js";
export { holder } from "./service.js";
