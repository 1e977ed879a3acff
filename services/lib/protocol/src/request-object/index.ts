export {
  DC_SD_JWT_VP_FORMATS,
  MSO_MDOC_VP_FORMATS,
  REQUEST_OBJECT_CONTENT_TYPE,
  REQUEST_OBJECT_TYP,
  type RequestObjectClaims,
  SELF_ISSUED_AUDIENCE,
  signRequestObject,
} from "./sign-request-object.js";
export { type Es256Signer, signRequestObjectWithX5c } from "./sign-request-object-with-x5c.js";
export {
  createRequestNonce,
  DEFAULT_DID_KEY_FRAGMENT,
  DID_CLIENT_ID_PREFIX,
  resolveVerifierClientId,
  type VerifierClientId,
} from "./verifier-client-id.js";
