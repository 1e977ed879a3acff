export { type DecodedJwt, decodeCompactJwt, isJsonObject, type JsonObject } from "./decode-compact-jwt.js";
export { ALLOWED_JWS_ALGORITHMS, type AllowedJwsAlgorithm, isAllowedJwsAlgorithm } from "./jws-algorithms.js";
export {
  type Disclosure,
  type ParsedSdJwtPresentation,
  parseSdJwtPresentation,
  type SdAlgorithm,
  SUPPORTED_SD_ALGORITHMS,
  sdDigest,
} from "./parse-sd-jwt-presentation.js";
export { SdJwtVerificationError } from "./sd-jwt-verification-error.js";
export { keyMatchesAlgorithm, publicMembersOf, verifyJwsSignature } from "./verify-jws-signature.js";
export {
  holderJwkOf,
  KB_JWT_TYP,
  type KeyBindingExpectations,
  verifyKeyBindingJwt,
} from "./verify-key-binding-jwt.js";
export {
  type Certificate,
  parseBase64DerCertificate,
  parsePemCertificates,
  subjectAltNamesOf,
  type VerifiedX5cChain,
  validateX5cChain,
  verifyX5cChain,
} from "./verify-x5c-chain.js";
export {
  createX5cChainCache,
  type ValidatedX5cChain,
  type X5cChainCache,
  type X5cChainValidator,
} from "./x5c-chain-cache.js";
