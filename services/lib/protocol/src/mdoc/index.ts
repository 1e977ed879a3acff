// `@attesto/protocol/mdoc`: ISO/IEC 18013-5 `mso_mdoc`, a thin wrapper over @owf/mdoc (see README.md here).
// A subpath of its own, so services that never touch mdocs do not load the CBOR stack.

export {
  COSE_ALGORITHMS,
  type CoseSignatureAlgorithmName,
  coseAlgorithmOf,
  jwsAlgorithmOfCose,
} from "./cose-algorithms.js";
export { createDeviceResponse, type DeviceResponseInput } from "./create-device-response.js";
export {
  type DecodedMdoc,
  decodeIssuerSigned,
  MdocFormatError,
  mdocFullDate,
  mdocValueToJson,
  parseIssuerSigned,
} from "./decode-issuer-signed.js";
export { type IssueMdocInput, issueMdoc, MDOC_SALT_BYTES, type MdocStatusListReference } from "./issue-mdoc.js";
export { type CoseSign, createMdocContext } from "./mdoc-context.js";
export { MdocVerificationError } from "./mdoc-verification-error.js";
export {
  MDOC_ISSUER_ALGORITHMS,
  type ParsedMdocPresentation,
  type PresentedMdocElement,
  parseDeviceResponse,
} from "./parse-device-response.js";
export {
  dcApiSessionTranscript,
  type MdocSessionTranscript,
  oid4vpSessionTranscript,
  sessionTranscriptBytes,
} from "./session-transcript.js";
export { type MdocCheckFailure, verifyIssuerSigned } from "./verify-issuer-signed.js";
export { verifyMdocDeviceSignature } from "./verify-mdoc-device-signature.js";
export { verifyMdocElementDigests, verifyMdocIssuerSignature } from "./verify-mdoc-issuer-auth.js";
