// `@attesto/runtime/errors`: the error model (and the check for text PostgreSQL cannot store, which
// is refused with 400), the only runtime subpath domain code may import.
// It loads nothing else (no HTTP, RPC or telemetry code): test/subpath-imports.test.ts.
export * from "./app-error.js";
export * from "./json-schema-field-errors.js";
export * from "./oauth-errors.js";
export { findUnstorableText } from "./unstorable-text.js";
