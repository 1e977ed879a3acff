export { buildApp } from "./app.js";
export * from "./config.js";
export { createDependencies, type HolderDependencyOptions } from "./dependencies.js";
export { holder } from "./service.js";
