export { AccessTokenError, type AccessTokenFailureReason } from "./access-token-error.js";
export {
  type AccessTokenPublicJwk,
  type AccessTokenSigner,
  type CreateAccessTokenSignerOptions,
  createAccessTokenSigner,
} from "./create-access-token-signer.js";
export {
  type AccessTokenVerifier,
  type CreateAccessTokenVerifierOptions,
  createAccessTokenVerifier,
  type VerifyAccessTokenOptions,
} from "./create-access-token-verifier.js";
export { MintedTokens, mintedHere } from "./minted-here.js";
export {
  ACCESS_TOKEN_ALG,
  ACCESS_TOKEN_TYP,
  type AccessTokenClaims,
  type AccessTokenGrant,
  type AccessTokenPayload,
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  parseAccessTokenPayload,
  zAccessTokenPayload,
} from "./z-access-token.js";
