import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { describeAuthorizationRequest } from "../domain/oid4vp/describe-authorization-request.js";
import { presentCredentials } from "../domain/oid4vp/present-credentials.js";
import type { HolderDependencies } from "../domain/ports.js";
import { userOf } from "./holder-auth.js";

const LINK_MAX_LENGTH = 16_384;
const MAX_SELECTED = 20;

const requiredString = (field: string, max = 4096) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .min(1, `${field} is required`)
    .max(max, `${field} must be at most ${max} characters`);

/**
 * The verifier answers its link as `authorization_request`; the holder's own name is
 * `authorization_request_uri`. Either spelling is accepted (both only when they are equal).
 */
const linkFields = {
  authorization_request_uri: requiredString("authorization_request_uri", LINK_MAX_LENGTH).optional(),
  authorization_request: requiredString("authorization_request", LINK_MAX_LENGTH).optional(),
};

function checkLink(
  body: { authorization_request_uri?: string; authorization_request?: string },
  context: z.RefinementCtx,
): void {
  const { authorization_request_uri: uri, authorization_request: alias } = body;
  if (uri === undefined && alias === undefined) {
    context.addIssue({
      code: "custom",
      path: ["authorization_request_uri"],
      message: "authorization_request_uri is required",
    });
  } else if (uri !== undefined && alias !== undefined && uri !== alias) {
    context.addIssue({
      code: "custom",
      path: ["authorization_request"],
      message: "authorization_request must equal authorization_request_uri when both are given",
    });
  }
}

/** The link, whichever spelling carried it (checked by checkLink). */
const linkOf = (body: { authorization_request_uri?: string; authorization_request?: string }) =>
  (body.authorization_request_uri ?? body.authorization_request)!;

/** Revoked or suspended credentials are offered and presented only when asked for (this service's README). */
const statusOptInFields = {
  include_revoked: z.boolean({ error: "include_revoked must be a boolean" }).default(false),
  include_suspended: z.boolean({ error: "include_suspended must be a boolean" }).default(false),
};

const optInOf = (body: { include_revoked: boolean; include_suspended: boolean }) => ({
  includeRevoked: body.include_revoked,
  includeSuspended: body.include_suspended,
});

const zRequestDetailsBody = z.object({ ...linkFields, ...statusOptInFields }).superRefine(checkLink);

const zRequestDetails = z.object({
  client_id: z.string(),
  client_metadata: z.record(z.string(), z.unknown()),
  dcql_query: z.record(z.string(), z.unknown()),
  matching_credentials: z.array(
    z.object({
      credential_id: z.string(),
      query_id: z.string(),
      vct: z.string(),
      claims: z.record(z.string(), z.unknown()),
      credential_status: z.enum(["valid", "revoked", "suspended", "status_unknown", "no_status"]),
    }),
  ),
  excluded_credentials: z.array(
    z.object({
      credential_id: z.string(),
      query_id: z.string(),
      vct: z.string(),
      reason: z.enum(["revoked", "suspended"]),
    }),
  ),
  nonce: z.string(),
  state: z.string().nullable(),
  response_mode: z.string(),
  response_uri: z.string(),
  expires_at: z.string(),
});

const zPresentationBody = z
  .object({
    ...linkFields,
    ...statusOptInFields,
    selected_credentials: z
      .array(
        z.object(
          {
            credential_id: z.uuid({ error: "selected_credentials[].credential_id must be a UUID" }),
            query_id: requiredString("selected_credentials[].query_id", 256),
            disclosed_claims: z
              .array(z.string().min(1).max(1024), { error: "disclosed_claims must be an array of strings" })
              .max(500)
              .nullish()
              .transform((value) => value ?? undefined),
          },
          { error: "selected_credentials[] must be objects" },
        ),
        {
          error: (issue) =>
            issue.input === undefined ? "selected_credentials is required" : "selected_credentials must be an array",
        },
      )
      .min(1, "selected_credentials must not be empty")
      .max(MAX_SELECTED, `selected_credentials must have at most ${MAX_SELECTED} entries`),
    holder_did: requiredString("holder_did", 2048),
    private_key: requiredString("private_key", 8192),
  })
  .superRefine(checkLink);

const zPresented = z.object({ success: z.boolean(), redirect_uri: z.string().optional() });

/** POST /v1/oid4vp/request-details and /v1/oid4vp/presentation (Bearer): the wallet side of OID4VP. */
export function registerOid4vpRoutes(scope: App, deps: HolderDependencies): void {
  scope.post(
    "/v1/oid4vp/request-details",
    { schema: { body: zRequestDetailsBody, response: { 200: zRequestDetails } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return describeAuthorizationRequest(
        deps,
        userOf(request),
        { uri: linkOf(request.body), optIn: optInOf(request.body) },
        request.log,
      );
    },
  );

  scope.post(
    "/v1/oid4vp/presentation",
    { schema: { body: zPresentationBody, response: { 200: zPresented } } },
    async (request, reply) => {
      const { body } = request;
      const outcome = await presentCredentials(
        deps,
        userOf(request),
        {
          authorizationRequestUri: linkOf(body),
          selected: body.selected_credentials.map((selection) => ({
            credentialId: selection.credential_id.toLowerCase(),
            queryId: selection.query_id,
            disclosedClaims: selection.disclosed_claims,
          })),
          holderDid: body.holder_did,
          privateKey: body.private_key,
          optIn: optInOf(body),
        },
        request.log,
      );
      reply.header("cache-control", "no-store");
      return { success: outcome.success, ...(outcome.redirectUri ? { redirect_uri: outcome.redirectUri } : {}) };
    },
  );
}
