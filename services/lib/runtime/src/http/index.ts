// `@attesto/runtime/http`: the Fastify app factory and what routes and outbound calls share.
export {
  type ApiKeyAuthenticator,
  type AuthenticatedTenant,
  apiTenantOf,
  requireApiKey,
  type TenantRole,
} from "./api-key.js";
export { type App, type CreateAppOptions, createApp, EXPOSED_HEADERS } from "./create-app.js";
export { DOCS_PATH, DOCS_ROUTES, docsPageCsp } from "./docs-page.js";
export { acceptEmptyJsonBody } from "./empty-json-body.js";
export { sendError } from "./error-handler.js";
export {
  answering,
  answersInScope,
  documentedOnly,
  OPENAPI_PATH,
  OPENAPI_VERSION,
  ROUTES_EXEMPT_FROM_SCHEMA,
  routesWithoutSchema,
} from "./openapi.js";
export {
  createServiceOutboundGuard,
  type OutboundConfig,
  outboundConfigShape,
  outboundGuardOptionsOf,
} from "./outbound-config.js";
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
} from "./outbound-request-guard.js";
export { isPublicAddress } from "./public-address.js";
export {
  type RateLimitCounter,
  type RateLimitDecision,
  type RateLimitRule,
  rateLimit,
  rateLimitKey,
} from "./rate-limit.js";
export { LOGGED_QUERY_PARAMETERS, redactUrl } from "./redact-url.js";
export { type FieldIssue, type ParsedFields, parseFields } from "./validation.js";
