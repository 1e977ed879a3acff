import { zReferenceFields } from "@attesto/protocol";
import { notFound } from "@attesto/runtime/errors";
import { type App, apiTenantOf, requireApiKey } from "@attesto/runtime/http";
import { z } from "zod";
import { changeCredentialStatus } from "../domain/change-credential-status.js";
import { credentialStatuses } from "../domain/credential-record.js";
import { currentReferenceOf } from "../domain/credential-reference.js";
import { credentialViewOf } from "../domain/credential-view.js";
import type { IssuerDependencies } from "../domain/ports.js";

/** Default and largest page of GET /v1/credentials. */
export const CREDENTIALS_PAGE = { default: 50, max: 200 } as const;
const MAX_OFFSET = 1_000_000;

const integerParam = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,7}$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, `must be an integer from ${min} to ${max}`)
        .max(max, `must be an integer from ${min} to ${max}`),
    )
    .optional()
    .transform((value) => value ?? fallback);

const zListQuery = z
  .object({
    offer_id: z.guid({ error: "must be a UUID" }).optional(),
    status: z.enum(credentialStatuses, { error: `must be one of ${credentialStatuses.join(", ")}` }).optional(),
    offset: integerParam(0, MAX_OFFSET, 0),
    limit: integerParam(1, CREDENTIALS_PAGE.max, CREDENTIALS_PAGE.default),
  })
  .strict();

const zCredentialParams = z.object({ credentialId: z.guid({ error: "must be a UUID" }) });

const zPatchBody = z.object({ status: z.enum(credentialStatuses) }).strict();

const zCredentialView = z.object({
  id: z.string(),
  offer_id: z.string(),
  vct: z.string(),
  status: z.enum(credentialStatuses),
  issued_at: z.string(),
  expires_at: z.string(),
  status_changed_at: z.string().nullable(),
  notification: z
    .object({ event: z.string(), event_description: z.string().optional(), notified_at: z.string() })
    .nullable()
    .describe("The wallet's latest report at the notification endpoint"),
});

const zCredentialDetail = zCredentialView.extend({
  reference: z
    .object({ chain: z.string(), object_id: z.string() })
    .extend(zReferenceFields.shape)
    .nullable()
    .describe(
      "Notarized credentials (is_on_chain): the reference, pending until its batch is anchored, then with the Merkle proof and the chain transaction (attesto notarization verify); null otherwise",
    ),
});

const zListResponse = z.object({
  credentials: z.array(zCredentialView),
  total: z.number(),
  offset: z.number(),
  limit: z.number(),
});

/**
 * GET /v1/credentials, GET and PATCH /v1/credentials/:credentialId (API key, issuer role): the tenant's
 * issued credentials, their status and notarization reference (this service's README "Issued credentials"). Every query is
 * scoped to the API key's tenant: another tenant's credential is 404.
 */
export function registerCredentialsRoutes(app: App, deps: IssuerDependencies): void {
  app.get(
    "/v1/credentials",
    {
      schema: { querystring: zListQuery, response: { 200: zListResponse } },
      onRequest: requireApiKey(deps.apiKeys, "issuer"),
    },
    async (request, reply) => {
      const { offer_id, status, offset, limit } = request.query;
      const { records, total } = await deps.credentials.list({
        tenant: apiTenantOf(request).tenant,
        ...(offer_id === undefined ? {} : { offerId: offer_id.toLowerCase() }),
        ...(status === undefined ? {} : { status }),
        offset,
        limit,
      });
      reply.header("cache-control", "no-store");
      return { credentials: records.map(credentialViewOf), total, offset, limit };
    },
  );

  app.get(
    "/v1/credentials/:credentialId",
    {
      schema: { params: zCredentialParams, response: { 200: zCredentialDetail } },
      onRequest: requireApiKey(deps.apiKeys, "issuer"),
    },
    async (request, reply) => {
      const record = await deps.credentials.find(
        apiTenantOf(request).tenant,
        request.params.credentialId.toLowerCase(),
      );
      if (!record) throw notFound("Credential not found");
      reply.header("cache-control", "no-store");
      return { ...credentialViewOf(record), reference: await currentReferenceOf(deps, record) };
    },
  );

  app.patch(
    "/v1/credentials/:credentialId",
    {
      schema: { params: zCredentialParams, body: zPatchBody, response: { 200: zCredentialView } },
      config: { answers: [404, 409, 503] },
      onRequest: requireApiKey(deps.apiKeys, "issuer"),
    },
    async (request, reply) => {
      const tenant = apiTenantOf(request);
      const record = await changeCredentialStatus(deps, {
        tenant: tenant.tenant,
        credentialId: request.params.credentialId.toLowerCase(),
        status: request.body.status,
        actor: `account:${tenant.accountUuid}`,
      });
      reply.header("cache-control", "no-store");
      return credentialViewOf(record);
    },
  );
}
