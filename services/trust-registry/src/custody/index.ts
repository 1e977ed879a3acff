export { IssuingCaConfigError } from "./configured-issuing-ca.js";
export { createKeyCustody, DEFAULT_KEY_CACHE_SIZE, type KeyCustodyOptions } from "./create-key-custody.js";
export type {
  HeldKey,
  ImportedSigningCertificate,
  KeyAlgorithm,
  KeyCustody,
  PublicJwk,
  SigningCertificate,
  VerifierCertificate,
  VerifierCertificateSource,
} from "./key-custody.js";
export { custodyMigrations } from "./migrations.js";
export { PLATFORM_TENANT } from "./tenant.js";
