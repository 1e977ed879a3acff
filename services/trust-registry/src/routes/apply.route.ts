import { type App, type RateLimitCounter, rateLimit } from "@attesto/runtime/http";
import { z } from "zod";
import { applyForTenant, assertSelfRegistrationOpen } from "../domain/apply-for-tenant.js";
import type { TrustRegistryDependencies } from "../domain/ports.js";
import { tenantStatuses } from "../domain/tenant.js";
import {
  zOrganizationEmail,
  zOrganizationName,
  zOrganizationPassword,
  zRoleFlag,
  zTenantIdentifier,
} from "../domain/z-tenant-fields.js";

/** 100 requests per minute per client IP, counted before validation (every request counts). */
export const APPLY_RATE_LIMIT = { name: "apply", max: 100, windowSeconds: 60 } as const;

const zApplyBody = z.object({
  name: zOrganizationName,
  email: zOrganizationEmail,
  password: zOrganizationPassword,
  tenant: zTenantIdentifier,
  is_issuer: zRoleFlag("is_issuer"),
  is_verifier: zRoleFlag("is_verifier"),
});

const zApplyResponse = z.object({ uuid: z.string(), status: z.enum(tenantStatuses), api_key: z.string() });

/**
 * POST /v1/apply: registers an organization and returns its API key once; TENANT_ADMISSION decides
 * whether it is approved at once, pending an operator's approval, or refused (403).
 */
export function registerApplyRoute(app: App, domain: TrustRegistryDependencies, counter: RateLimitCounter): void {
  app.post(
    "/v1/apply",
    {
      schema: { body: zApplyBody, response: { 201: zApplyResponse } },
      config: { answers: [403, 409, 429] },
      onRequest: rateLimit(counter, { ...APPLY_RATE_LIMIT, key: (request) => request.ip }),
      // Closed: 403 before the body is looked at (an invalid body must not turn it into a 400).
      preValidation: async () => assertSelfRegistrationOpen(domain),
    },
    async (request, reply) => {
      const body = request.body;
      const registration = await applyForTenant(domain, {
        name: body.name,
        email: body.email,
        password: body.password,
        tenant: body.tenant,
        isIssuer: body.is_issuer,
        isVerifier: body.is_verifier,
      });
      reply.code(201).header("cache-control", "no-store");
      return { uuid: registration.accountUuid, status: registration.status, api_key: registration.apiKey };
    },
  );
}
