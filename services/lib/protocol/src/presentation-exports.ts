// Presentation artifacts (SD-JWT VC verification, key binding, DCQL, request objects); owned by the verifier work.
export * from "./dcql/index.js";
export * from "./jwe/index.js";
export * from "./request-object/index.js";
export * from "./sd-jwt-verify/index.js";
export * from "./status-list-verify/index.js";
