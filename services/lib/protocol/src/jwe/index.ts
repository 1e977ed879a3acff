export {
  createResponseEncryptionKey,
  RESPONSE_ENCRYPTION_ALG,
  RESPONSE_ENCRYPTION_ENC_VALUES,
  type ResponseEncryptionKey,
  type ResponseEncryptionPublicJwk,
} from "./create-response-encryption-key.js";
export {
  AuthorizationResponseDecryptionError,
  decryptAuthorizationResponse,
  encryptionKidOf,
} from "./decrypt-authorization-response.js";
