export { CredentialProofError } from "./credential-proof-error.js";
export {
  algorithmOfKey,
  hasPrivateKeyMaterial,
  type PublicJwk,
  publicJwkOf,
  type SignatureAlgorithm,
  samePublicKey,
} from "./public-jwk.js";
export {
  type DidDocumentResolver,
  DidKeyResolutionError,
  type DidVerificationMethod,
  didOfDidUrl,
  isDid,
  resolveDidUrlKey,
  verificationMethodsOf,
} from "./resolve-did-url-key.js";
export {
  DEFAULT_PROOF_FUTURE_SKEW_SECONDS,
  DEFAULT_PROOF_MAX_AGE_SECONDS,
  OPENID4VCI_PROOF_TYP,
  type VerifiedCredentialProof,
  type VerifyCredentialProofOptions,
  verifyCredentialProof,
} from "./verify-credential-proof.js";
