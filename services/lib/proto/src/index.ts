// Generated protobuf code lives in ./gen (npm run gen); this file only re-exports it.
export * as tokenStatusV1 from "./gen/attesto/auth/v1/token_status_pb.js";
export * as issuanceV1 from "./gen/attesto/issuance/v1/grant_pb.js";
export * as issuerConfigurationV1 from "./gen/attesto/issuance/v1/issuer_configuration_pb.js";
export * as keysV1 from "./gen/attesto/keys/v1/keys_pb.js";
export * as ledgerV1 from "./gen/attesto/ledger/v1/ledger_pb.js";
export * as notaryV1 from "./gen/attesto/notary/v1/notary_pb.js";
export * as schemaV1 from "./gen/attesto/schema/v1/schema_pb.js";
export * as tenantV1 from "./gen/attesto/tenant/v1/tenant_pb.js";
export * as verifierPolicyV1 from "./gen/attesto/verifier/v1/verifier_policy_pb.js";
