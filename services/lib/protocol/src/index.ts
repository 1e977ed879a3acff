export * from "./did/did-key.js";
export * from "./issuance-exports.js";
export * from "./keys/ed25519.js";
export { KeyFormatError } from "./keys/key-format-error.js";
export * from "./keys/p256.js";
export { fromHex, toHex } from "./merkle/hex.js";
export * from "./merkle/rfc6962.js";
export * from "./presentation-exports.js";
