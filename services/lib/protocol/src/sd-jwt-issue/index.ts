export { createDisclosureFrame, type DisclosureFrame } from "./create-disclosure-frame.js";
export {
  type IssuedSdJwtVc,
  type IssueSdJwtVcInput,
  issueSdJwtVc,
  RESERVED_CLAIM_NAMES,
  SALT_BYTES,
  SD_JWT_VC_TYP,
  SdJwtVcIssueError,
} from "./issue-sd-jwt-vc.js";
export { createKeyObjectSigner, createPrivateJwkSigner, type JwtSigner, type SignerKeyHeader } from "./jwt-signer.js";
