export {
  computeS256CodeChallenge,
  isPkceCodeVerifier,
  isS256CodeChallenge,
  PKCE_S256,
} from "./compute-s256-code-challenge.js";
export { createPkce, type Pkce } from "./create-pkce.js";
export { PkceError, type PkceFailureReason } from "./pkce-error.js";
export { verifyPkceS256 } from "./verify-pkce.js";
