// Issuance artifacts (DPoP, proofs, nonces, SD-JWT VC issuance); owned by the issuance work.

export * from "./access-token/index.js";
export * from "./c-nonce/index.js";
export * from "./client-attestation/index.js";
export * from "./dpop/index.js";
export * from "./pkce/index.js";
export * from "./proof/index.js";
export * from "./sd-jwt-issue/index.js";
export * from "./status-list/index.js";
