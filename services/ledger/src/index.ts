export { hashLeaf, merkleRoot, verifyInclusion } from "@attesto/protocol";
export { buildApp } from "./app.js";
export * from "./config.js";
export { CHECKPOINT_JWS_TYPE } from "./domain/checkpoint-signer.js";
export { canonicalEntryBytes } from "./domain/ledger-entry.js";
export { ledger } from "./service.js";
