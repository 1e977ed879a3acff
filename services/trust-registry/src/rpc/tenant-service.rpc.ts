import { tenantV1 } from "@attesto/proto";
import { badRequest, notFound } from "@attesto/runtime/errors";
import { callerKey } from "@attesto/runtime/rpc";
import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { z } from "zod";
import { approveTenant } from "../domain/approve-tenant.js";
import { authenticateApiKey } from "../domain/authenticate-api-key.js";
import { deleteTenant, revokeApiKeys } from "../domain/delete-tenant.js";
import { getIssuerStanding } from "../domain/get-issuer-standing.js";
import { listRegisteredIssuers } from "../domain/list-registered-issuers.js";
import type { TrustRegistryDependencies } from "../domain/ports.js";
import { provisionCredentialTypes } from "../domain/provision-credential-types.js";
import { reconcileTenant } from "../domain/reconcile-tenant.js";
import { replaceApiKey } from "../domain/replace-api-key.js";
import { getWebhooks, setWebhooks } from "../domain/set-webhooks.js";
import { rolesOf, type TenantAccount } from "../domain/tenant.js";
import { zOrganizationEmail, zOrganizationName, zTenantIdentifier } from "../domain/z-tenant-fields.js";

type Reply<Schema extends DescMessage> = Promise<MessageInitShape<Schema>>;

/** The one caller GetWebhooks answers the signing secret to (it signs the deliveries). */
const WEBHOOK_SECRET_READER = "scheduler";

const STANDING_TO_WIRE = {
  active: tenantV1.IssuerStanding.ACTIVE,
  deactivated: tenantV1.IssuerStanding.DEACTIVATED,
} as const;

const ROLE_TO_WIRE = { issuer: tenantV1.Role.ISSUER, verifier: tenantV1.Role.VERIFIER } as const;

function toTenantMessage(account: TenantAccount): MessageInitShape<typeof tenantV1.TenantSchema> {
  return {
    accountUuid: account.accountUuid,
    tenant: account.tenant,
    name: account.name,
    roles: rolesOf(account).map((role) => ROLE_TO_WIRE[role]),
    status: account.status,
    ...(account.reactivatedAt ? { reactivatedAt: timestampFromDate(account.reactivatedAt) } : {}),
  };
}

/** The calling service identity, recorded in the lifecycle audit record. */
const actorOf = (context: HandlerContext) => context.values.get(callerKey) || "unknown";

/** Parses one field with its field rule (trust registry README, "POST /v1/apply"); a violation is InvalidArgument with the rule's message. */
function field<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(result.error.issues[0]?.message ?? "invalid field");
  return result.data;
}

/** attesto.tenant.v1.TenantService: API key authentication for the issuer and verifier; operator actions; webhooks for the scheduler. */
export class TenantServiceRpc implements ServiceImpl<typeof tenantV1.TenantService> {
  constructor(private readonly domain: TrustRegistryDependencies) {}

  async authenticateApiKey(
    request: tenantV1.AuthenticateApiKeyRequest,
  ): Reply<typeof tenantV1.AuthenticateApiKeyResponseSchema> {
    const result = await authenticateApiKey(this.domain, request.apiKey);
    switch (result.outcome) {
      case "valid":
        return { outcome: tenantV1.ApiKeyOutcome.VALID, tenant: toTenantMessage(result.account) };
      case "not_approved":
        return { outcome: tenantV1.ApiKeyOutcome.NOT_APPROVED, tenant: toTenantMessage(result.account) };
      default:
        return { outcome: tenantV1.ApiKeyOutcome.INVALID };
    }
  }

  async listRegisteredIssuers(): Reply<typeof tenantV1.ListRegisteredIssuersResponseSchema> {
    return listRegisteredIssuers(this.domain);
  }

  async getIssuerStanding(
    request: tenantV1.GetIssuerStandingRequest,
  ): Reply<typeof tenantV1.GetIssuerStandingResponseSchema> {
    const result = await getIssuerStanding(this.domain, { iss: request.iss, did: request.did || undefined });
    return result.standing === "unknown"
      ? { standing: tenantV1.IssuerStanding.UNKNOWN }
      : { standing: STANDING_TO_WIRE[result.standing], tenant: result.tenant };
  }

  async provisionCredentialTypes(): Reply<typeof tenantV1.ProvisionCredentialTypesResponseSchema> {
    return { configurationsAdded: await provisionCredentialTypes(this.domain) };
  }

  async getTenant(request: tenantV1.GetTenantRequest): Reply<typeof tenantV1.GetTenantResponseSchema> {
    const account = await this.domain.tenants.findByTenant(request.tenant.toLowerCase());
    if (!account) throw notFound("Tenant not found");
    const configurations = await this.domain.tenants.listCredentialConfigurations(account.tenant);
    return { tenant: toTenantMessage(account), credentialConfigurations: configurations };
  }

  async applyTenant(
    request: tenantV1.ApplyTenantRequest,
    context: HandlerContext,
  ): Reply<typeof tenantV1.ApplyTenantResponseSchema> {
    const reconciled = await reconcileTenant(
      this.domain,
      {
        tenant: field(zTenantIdentifier, request.tenant),
        name: field(zOrganizationName, request.name),
        email: field(zOrganizationEmail, request.email),
        isIssuer: request.isIssuer,
        isVerifier: request.isVerifier,
      },
      actorOf(context),
    );
    return { tenant: toTenantMessage(reconciled.account), apiKey: reconciled.apiKey ?? "" };
  }

  async approveTenant(request: tenantV1.ApproveTenantRequest): Reply<typeof tenantV1.ApproveTenantResponseSchema> {
    const result = await approveTenant(this.domain, field(zTenantIdentifier, request.tenant));
    return { tenant: toTenantMessage(result.account), approved: result.approved };
  }

  async replaceApiKey(request: tenantV1.ReplaceApiKeyRequest): Reply<typeof tenantV1.ReplaceApiKeyResponseSchema> {
    return { apiKey: await replaceApiKey(this.domain, request.tenant) };
  }

  async setWebhooks(request: tenantV1.SetWebhooksRequest): Reply<typeof tenantV1.SetWebhooksResponseSchema> {
    const { generatedSecret } = await setWebhooks(this.domain, {
      tenant: request.tenant,
      webhooks: request.webhooks,
      secret: request.secret,
    });
    return { generatedSecret: generatedSecret ?? "" };
  }

  async getWebhooks(
    request: tenantV1.GetWebhooksRequest,
    context: HandlerContext,
  ): Reply<typeof tenantV1.GetWebhooksResponseSchema> {
    // Who may call is the caller policy's (scheduler, operator); the signing secret goes only to
    // the service that signs webhooks, the operator sees the endpoints.
    const caller = context.values.get(callerKey);
    const { webhooks, secret } = await getWebhooks(
      {
        ...this.domain,
        tenantExists: async (tenant) => (await this.domain.tenants.findByTenant(tenant)) !== undefined,
      },
      request.tenant,
    );
    return { webhooks, secret: caller === WEBHOOK_SECRET_READER ? secret : "" };
  }

  async revokeApiKeys(request: tenantV1.RevokeApiKeysRequest): Reply<typeof tenantV1.RevokeApiKeysResponseSchema> {
    return { revoked: await revokeApiKeys(this.domain, field(zTenantIdentifier, request.tenant)) };
  }

  async deleteTenant(
    request: tenantV1.DeleteTenantRequest,
    context: HandlerContext,
  ): Reply<typeof tenantV1.DeleteTenantResponseSchema> {
    const result = await deleteTenant(this.domain, field(zTenantIdentifier, request.tenant), actorOf(context));
    return { found: result.found, deactivated: result.deactivated, revokedApiKeys: result.revokedApiKeys };
  }
}
