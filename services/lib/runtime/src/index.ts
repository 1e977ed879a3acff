export {
  type ApiKeyAuthenticator,
  type AuthenticatedTenant,
  apiTenantOf,
  createApiKeyAuthenticator,
  requireApiKey,
  type TenantClient,
  type TenantRole,
} from "./auth/api-key.js";
export { createLoadingCache, type LoadingCache, type LoadingCacheOptions } from "./cache/loading-cache.js";
export {
  type BaseConfig,
  type BaseConfigShape,
  baseConfigShape,
  booleanFlag,
  ConfigError,
  loadConfig,
  publicUrlOf,
} from "./config.js";
export {
  type CustodyColumns,
  createEnvelopeSealer,
  EnvelopeError,
  type EnvelopeSealer,
  type KeyEncryptionKey,
  keyEncryptionKeysSchema,
} from "./crypto/envelope.js";
export * from "./errors.js";
export { type App, type CreateAppOptions, createApp, EXPOSED_HEADERS } from "./http/create-app.js";
export { acceptEmptyJsonBody } from "./http/empty-json-body.js";
export { sendError } from "./http/error-handler.js";
export {
  createServiceOutboundGuard,
  type OutboundConfig,
  outboundConfigShape,
  outboundGuardOptionsOf,
} from "./http/outbound-config.js";
export {
  createOutboundGuard,
  type Lookup,
  type OutboundFailure,
  type OutboundGuard,
  type OutboundGuardOptions,
  type OutboundLogger,
  type OutboundRequest,
  OutboundRequestError,
  type OutboundResponse,
  parseAllowedHost,
} from "./http/outbound-request-guard.js";
export { isPublicAddress } from "./http/public-address.js";
export {
  type RateLimitCounter,
  type RateLimitDecision,
  type RateLimitRule,
  rateLimit,
  rateLimitKey,
} from "./http/rate-limit.js";
export { LOGGED_QUERY_PARAMETERS, redactUrl } from "./http/redact-url.js";
export { findUnstorableText } from "./http/unstorable-text.js";
export {
  closeOnSignals,
  createServiceContext,
  launchService,
  type RunningService,
  readinessChecksOf,
  type ServiceContext,
  type ServiceDefinition,
} from "./launch.js";
export { loggerOptions, redactedPaths } from "./logger.js";
export { createServiceMetrics, type ServiceMetrics } from "./metrics.js";
export * from "./oauth-errors.js";
export { readPackageVersion } from "./package-version.js";
export {
  checkReadiness,
  databaseCheck,
  migrationsCheck,
  peerCheck,
  type ReadinessCheck,
  type ReadinessReport,
  registerReadinessRoute,
} from "./readiness.js";
export { allowedCallers, CALLER_POLICY, callerKey } from "./rpc/caller-policy.js";
export { clientInterceptors, createRpcClient, type RpcClientOptions } from "./rpc/client.js";
export { fromRpcError, rpcErrorCodeOf, toConnectError } from "./rpc/error-mapping.js";
export { type InternalServer, serverInterceptors, startInternalServer } from "./rpc/server.js";
export {
  createServiceCredentialSigner,
  createServiceCredentialVerifier,
  type ServiceCredentialSigner,
  type ServiceCredentialVerifier,
} from "./rpc/service-credential.js";
export {
  generateServiceIdentities,
  generateServiceIdentityKey,
  parseServiceIdentityKey,
  parseServiceIdentityPublicKeys,
  SERVICE_IDENTITIES,
  type ServiceIdentity,
  serviceIdentityPublicKeys,
} from "./rpc/service-identity.js";
export { createServiceApp, envPrefixOf, perService, runServiceMain, type ServiceModule } from "./service-module.js";
export {
  isTenantId,
  RESERVED_TENANT_PREFIXES,
  TENANT_ID_MAX_LENGTH,
  TENANT_ID_PATTERN,
  tenantIdProblem,
  zTenantIdNamed,
} from "./tenant-id.js";
export { startTracing, type Tracing } from "./tracing.js";
