export {
  ClientAttestationError,
  type ClientAttestationFailureReason,
} from "./client-attestation-error.js";
export {
  attestationPublicJwk,
  type CreateClientAttestationJwtOptions,
  type CreateClientAttestationPopJwtOptions,
  createClientAttestationJwt,
  createClientAttestationPopJwt,
} from "./create-client-attestation.js";
export {
  type ClientAttestationTrust,
  createClientAttestationTrust,
  type TrustedWalletProviderKey,
} from "./create-client-attestation-trust.js";
export {
  CLIENT_ATTESTATION_MAX_FUTURE_SKEW_SECONDS,
  CLIENT_ATTESTATION_POP_JTI_NAMESPACE,
  CLIENT_ATTESTATION_POP_MAX_AGE_SECONDS,
  type ClientAttestationReplayStore,
  type VerifiedClientAttestation,
  type VerifyClientAttestationOptions,
  verifyClientAttestation,
} from "./verify-client-attestation.js";
export {
  ATTEST_JWT_CLIENT_AUTH,
  CLIENT_ATTESTATION_HEADER,
  CLIENT_ATTESTATION_POP_HEADER,
  CLIENT_ATTESTATION_POP_TYP,
  CLIENT_ATTESTATION_SIGNING_ALGS,
  CLIENT_ATTESTATION_TYP,
  type ClientAttestationJwtHeader,
  type ClientAttestationJwtPayload,
  type ClientAttestationPopJwtHeader,
  type ClientAttestationPopJwtPayload,
  type ClientAttestationSigningAlg,
  zClientAttestationJwtHeader,
  zClientAttestationJwtPayload,
  zClientAttestationPopJwtHeader,
  zClientAttestationPopJwtPayload,
} from "./z-client-attestation.js";
