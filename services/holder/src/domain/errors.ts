import { AppError, type AppErrorOptions } from "@attesto/runtime/errors";

/**
 * The holder's 400s, one stable code per kind of failure. Messages say precisely what went wrong
 * and never carry keys, tokens, codes or credential contents.
 */
const factory =
  (code: string) =>
  (message: string, options?: AppErrorOptions): AppError =>
    new AppError(400, code, message, options);

/** The offer link, offer document or issuer metadata cannot be used. */
export const invalidOffer = factory("invalid_offer");
/** The pre-authorized code was refused (expired, used, wrong transaction code). */
export const invalidGrant = factory("invalid_grant");
/** The issuer refused the key proof, or no proof can be made with the given key. */
export const invalidProof = factory("invalid_proof");
/** The issuance failed at the authorization server or the credential endpoint. */
export const issuanceFailed = factory("issuance_failed");
/** The issued credential does not verify (signature, issuer, type, holder binding, validity). */
export const invalidCredential = factory("invalid_credential");
/** holder_did / private_key do not give a key the caller may use. */
export const invalidHolderKey = factory("invalid_holder_key");
/** The openid4vp link or its request object cannot be used (or it expired). */
export const invalidAuthorizationRequest = factory("invalid_authorization_request");
/** The selection does not answer the verifier's query. */
export const noMatchingCredentials = factory("no_matching_credentials");
/** Building or submitting the presentation failed. */
export const presentationFailed = factory("presentation_failed");
