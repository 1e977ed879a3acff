export { CNonceError, type CNonceErrorCode } from "./c-nonce-error.js";
export {
  type CNonce,
  type CNonceOptions,
  type CNonces,
  createCNonces,
  DEFAULT_C_NONCE_TTL_SECONDS,
  MIN_C_NONCE_SECRET_LENGTH,
} from "./create-c-nonces.js";
