import { type App, apiTenantOf, requireApiKey } from "@attesto/runtime/http";
import { z } from "zod";
import { getVerificationResult } from "../domain/get-verification-result.js";
import type { VerifierDependencies } from "../domain/ports.js";

const zParams = z.object({ sessionId: z.string().min(1).max(100, "must be at most 100 characters") });

/** Same-device flow: the response_code the wallet's redirect carried (single use). */
const zQuery = z.object({
  response_code: z
    .string({ error: "must be a string" })
    .min(1, "must not be empty")
    .max(128, "must be at most 128 characters")
    .optional()
    .describe(
      "Same-device flow: the response_code the wallet's redirect carried; the result is released only for this session's unused code (single use)",
    ),
});

const zResult = z.object({
  session_id: z.string(),
  status: z.enum(["pending", "in_progress", "completed", "failed", "expired"]),
  created_at: z.string(),
  expires_at: z.string(),
  verified_at: z.string().optional(),
  verification_mode: z.enum(["fail_fast", "run_all"]),
  check_results: z.array(
    z.object({
      check: z.string(),
      status: z.enum(["success", "failed", "skipped"]),
      reason_code: z.string(),
      message: z.string(),
    }),
  ),
  presentation_metadata: z
    .object({
      claims: z.record(z.string(), z.unknown()),
      credential_metadata: z.array(
        z.object({
          issuer: z.string(),
          credential_type: z.array(z.string()),
          issued_at: z.string().nullable(),
          expires_at: z.string().nullable(),
        }),
      ),
    })
    .optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

/**
 * GET /v1/verifier/result/:sessionId (API key): the session as its creating tenant sees it. No
 * role is required: a session of another tenant is simply not found (404). `?response_code=`
 * (same-device flow) releases the result only to the holder of the code the wallet was redirected with.
 */
export function registerGetVerificationResultRoute(app: App, deps: VerifierDependencies): void {
  app.get(
    "/v1/verifier/result/:sessionId",
    {
      onRequest: requireApiKey(deps.apiKeys),
      schema: { params: zParams, querystring: zQuery, response: { 200: zResult } },
      config: { answers: [404] },
    },
    async (request, reply) => {
      const result = await getVerificationResult(
        deps,
        apiTenantOf(request).tenant,
        request.params.sessionId,
        request.query.response_code,
      );
      return reply.header("cache-control", "no-store").send(result);
    },
  );
}
