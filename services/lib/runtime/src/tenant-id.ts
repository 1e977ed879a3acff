import { z } from "zod";

/**
 * The tenant identifier rules, the only copy: the trust registry (`POST /v1/apply`, TenantService),
 * the credential issuer and the verifier (tenant arguments and URL segments) and the operator
 * (`Tenant.spec.tenantId`) check with these; the Tenant CRD's schema says the same in OpenAPI and
 * CEL, and test/k8s/crds.test.ts fails when it no longer does.
 */
export const TENANT_ID_MAX_LENGTH = 100;

/** The characters of a tenant identifier (the `pattern` of the CRD). */
export const TENANT_ID_PATTERN = /^[a-z0-9_-]+$/;

/** Prefixes kept for the platform's own names (user, service, admin, API and web hosts). */
export const RESERVED_TENANT_PREFIXES = ["u-", "svc-", "admin-", "api-", "www-"] as const;

/**
 * What is wrong with `id` as a tenant identifier, as a sentence naming `field`; undefined when it
 * is one. The first rule broken is named (empty, length, characters, reserved prefix).
 */
export function tenantIdProblem(id: string, field = "tenant"): string | undefined {
  if (id.length === 0) return `${field} must not be empty`;
  if (id.length > TENANT_ID_MAX_LENGTH) return `${field} must be at most ${TENANT_ID_MAX_LENGTH} characters`;
  if (!TENANT_ID_PATTERN.test(id)) {
    return `${field} may contain only letters a-z, digits, hyphens and underscores`;
  }
  if (RESERVED_TENANT_PREFIXES.some((prefix) => id.startsWith(prefix))) {
    return `${field} must not start with a reserved prefix (${RESERVED_TENANT_PREFIXES.join(", ")})`;
  }
  return undefined;
}

export const isTenantId = (id: string): boolean => tenantIdProblem(id) === undefined;

/**
 * A tenant as a public URL path segment (`/:tenant/...`): lowercased, since identifiers are lowercase
 * at registration, so the path matches them case-insensitively; at most TENANT_ID_MAX_LENGTH. Only
 * the length is checked: a segment that names no tenant is the route's 404.
 */
export const zTenantPathSegment = () => z.string().min(1).max(TENANT_ID_MAX_LENGTH).toLowerCase();

/** A zod string checked with the tenant identifier rules, the message naming `field`. */
export const zTenantIdNamed = (field: string) =>
  z.string().superRefine((id, context) => {
    const problem = tenantIdProblem(id, field);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });
