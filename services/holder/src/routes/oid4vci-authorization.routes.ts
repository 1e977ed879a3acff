import { isAppError, notFound } from "@attesto/runtime/errors";
import type { App } from "@attesto/runtime/http";
import type { FastifyReply } from "fastify";
import { z } from "zod";
import type { AuthorizationFlow } from "../domain/oid4vci/authorization-flow.js";
import { completeAuthorization } from "../domain/oid4vci/complete-authorization.js";
import { startAuthorization } from "../domain/oid4vci/start-authorization.js";
import type { HolderDependencies } from "../domain/ports.js";
import { type CallbackPage, callbackPage } from "../pages/callback-page.js";
import { userOf } from "./holder-auth.js";
import { LINK_MAX_LENGTH, optionalString, requiredString } from "./oid4vci.routes.js";

const zStartBody = z.object({
  credential_offer_uri: requiredString("credential_offer_uri", LINK_MAX_LENGTH),
  holder_did: requiredString("holder_did", 2048),
  private_key: requiredString("private_key", 8192),
  credential_configuration_id: optionalString("credential_configuration_id", 256),
  notarize_on_ledger: z
    .boolean({ error: "notarize_on_ledger must be a boolean" })
    .nullish()
    .transform((value) => value ?? true),
});

const zStarted = z.object({
  flow_id: z.string(),
  authorization_url: z.string().describe("Open it in the user's browser: the authorization server's consent page"),
  expires_at: z.string(),
});

const zFlow = z.object({
  flow_id: z.string(),
  status: z.enum(["pending", "redeeming", "completed", "failed", "expired"]),
  credential_issuer: z.string(),
  credential_configuration_id: z.string(),
  credential_id: z.string().nullable(),
  error: z.string().nullable(),
  error_description: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
  ended_at: z.string().nullable(),
});

const zFlowParams = z.object({ flow_id: z.uuid({ error: "flow_id must be a UUID" }) });

const zQueryValue = z.union([z.string(), z.array(z.string())]);
const zCallbackQuery = z
  .object({
    state: zQueryValue.optional(),
    code: zQueryValue.optional(),
    error: zQueryValue.optional(),
    iss: zQueryValue.optional(),
  })
  .catchall(zQueryValue);

/** One query value; a repeated or empty one counts as absent (the flow then says what is missing). */
const single = (value: unknown) =>
  typeof value === "string" && value !== "" && value.length <= 4096 ? value : undefined;

function flowView(flow: AuthorizationFlow, now: Date): z.infer<typeof zFlow> {
  const expired = flow.status === "pending" && flow.expiresAt.getTime() <= now.getTime();
  return {
    flow_id: flow.id,
    status: expired ? "expired" : flow.status,
    credential_issuer: flow.credentialIssuer,
    credential_configuration_id: flow.credentialConfigurationId,
    credential_id: flow.credentialId,
    error: flow.error,
    error_description: flow.errorDescription,
    created_at: flow.createdAt.toISOString(),
    expires_at: flow.expiresAt.toISOString(),
    ended_at: flow.endedAt?.toISOString() ?? null,
  };
}

const sendPage = (reply: FastifyReply, page: CallbackPage) =>
  reply
    .code(page.status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("content-security-policy", page.csp)
    .header("referrer-policy", "no-referrer")
    .send(page.html);

/** POST /v1/oid4vci/authorize and GET /v1/oid4vci/authorize/:flow_id (Bearer): the authorization code flow. */
export function registerAuthorizationRoutes(scope: App, deps: HolderDependencies): void {
  scope.post(
    "/v1/oid4vci/authorize",
    { schema: { body: zStartBody, response: { 201: zStarted } } },
    async (request, reply) => {
      const { body } = request;
      const started = await startAuthorization(deps, userOf(request), {
        credentialOfferUri: body.credential_offer_uri,
        holderDid: body.holder_did,
        privateKey: body.private_key,
        credentialConfigurationId: body.credential_configuration_id,
        notarizeOnLedger: body.notarize_on_ledger,
      });
      reply.code(201).header("cache-control", "no-store");
      return {
        flow_id: started.flowId,
        authorization_url: started.authorizationUrl,
        expires_at: started.expiresAt.toISOString(),
      };
    },
  );

  scope.get(
    "/v1/oid4vci/authorize/:flow_id",
    { schema: { params: zFlowParams, response: { 200: zFlow } } },
    async (request, reply) => {
      const flow = await deps.authorizationFlows.find(userOf(request), request.params.flow_id.toLowerCase());
      if (!flow) throw notFound("authorization flow not found");
      reply.header("cache-control", "no-store");
      return flowView(flow, deps.now());
    },
  );
}

/**
 * GET /v1/oid4vci/callback (public: the browser's redirect from the authorization server). The
 * answer is an HTML page, also for every failure (a 400 page, never JSON).
 */
export function registerCallbackRoute(app: App, deps: HolderDependencies): void {
  app.get(
    "/v1/oid4vci/callback",
    {
      schema: { querystring: zCallbackQuery },
      config: { produces: "text/html", errorPages: true },
      exposeHeadRoute: false,
    },
    async (request, reply) => {
      const { query } = request;
      try {
        const { credential } = await completeAuthorization(
          deps,
          { state: single(query.state), code: single(query.code), error: single(query.error), iss: single(query.iss) },
          request.log,
        );
        return sendPage(
          reply,
          callbackPage({
            received: true,
            credentialId: credential.id,
            vct: credential.vct,
            issuerCredentialId: credential.issuerCredentialId,
          }),
        );
      } catch (error) {
        if (!isAppError(error)) throw error;
        request.log.info({ code: error.code, status: error.status }, "authorization callback refused");
        return sendPage(reply, callbackPage({ received: false, status: error.status, message: error.message }));
      }
    },
  );
}
