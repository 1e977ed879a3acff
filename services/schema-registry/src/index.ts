export { buildApp } from "./app.js";
export * from "./config.js";
export { schemaRegistry } from "./service.js";
