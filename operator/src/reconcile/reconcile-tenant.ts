import { tenantV1 } from "@attesto/proto";
import { succeeded } from "../controller/conditions.js";
import { decodeSecretValue, encodeSecretValue, type Secret } from "../kube/kube-client.js";
import {
  API_VERSION,
  type CustomResource,
  describeSpecError,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  TENANT_FINALIZER,
  type TenantSpec,
  type TenantStatus,
  zTenantSpec,
} from "../resources.js";
import { olderRival } from "./older-rival.js";
import { blockedError, fromPlatformError, retryableError } from "./reconcile-error.js";
import type { ReconcileDeps, ReconcileResult, Reconciler, ResourceCache } from "./reconciler.js";
import { resourcesReferringTo } from "./tenant-references.js";

/** Keys of the Secret the operator writes for a tenant. */
export const API_KEY_SECRET_KEYS = {
  apiKey: "api-key",
  tenantId: "tenant-id",
  webhookSecret: "webhook-secret",
} as const;

const ROLE_NAMES: Record<number, string> = {
  [tenantV1.Role.ISSUER]: "issuer",
  [tenantV1.Role.VERIFIER]: "verifier",
};

export const apiKeySecretNameOf = (resource: CustomResource, spec: Pick<TenantSpec, "apiKeySecretName">) =>
  spec.apiKeySecretName ?? `${resource.metadata.name}-api-key`;

export function parseTenantSpec(resource: CustomResource): TenantSpec {
  const parsed = zTenantSpec.safeParse(resource.spec ?? {});
  if (!parsed.success) throw blockedError("InvalidSpec", describeSpecError(parsed.error));
  return parsed.data;
}

const isOwnedBy = (secret: Secret, resource: CustomResource) =>
  secret.metadata.ownerReferences?.some((ref) => ref.uid === resource.metadata.uid && ref.kind === "Tenant") ?? false;

/**
 * Tenant -> TenantService.ApplyTenant (+ SetWebhooks). The API key the platform reveals once, at
 * creation, goes into a Secret this Tenant owns; it is never written again, except to recover a
 * lost key (`apiKeyRecovery: Replace`), which revokes the old ones.
 */
export class TenantReconciler implements Reconciler {
  readonly kind = "Tenant" as const;
  readonly finalizer = TENANT_FINALIZER;

  /**
   * Keys revealed by the platform but not yet stored (the Secret write failed): kept in memory so
   * that the retry stores the same key instead of replacing it. Lost on restart, then recovered
   * through `apiKeyRecovery`.
   */
  private readonly unsavedApiKeys = new Map<string, string>();

  constructor(private readonly deps: ReconcileDeps) {}

  async reconcile(resource: CustomResource): Promise<ReconcileResult> {
    const spec = parseTenantSpec(resource);
    this.assertUniqueTenantId(resource, spec);
    const namespace = resource.metadata.namespace;
    const secretName = apiKeySecretNameOf(resource, spec);

    // Check the Secret before the platform call: a key revealed at creation must have somewhere to go.
    const existingSecret = await this.deps.kube.getSecret(namespace, secretName);
    if (existingSecret && !isOwnedBy(existingSecret, resource)) {
      throw blockedError(
        "SecretConflict",
        `Secret ${secretName} exists and is not owned by this Tenant; delete it or set spec.apiKeySecretName`,
      );
    }
    const webhookSecret = await this.readWebhookSecret(namespace, spec);

    const applied = await this.deps.platform.tenants
      .applyTenant({
        tenant: spec.tenantId,
        name: spec.organizationName,
        email: spec.contact?.email ?? "",
        isIssuer: spec.roles.issuer,
        isVerifier: spec.roles.verifier,
      })
      .catch((error: unknown) => {
        throw fromPlatformError(error, "ApplyTenant");
      });

    let event: ReconcileResult["event"];
    if (applied.apiKey) {
      await this.writeApiKey(resource, spec, secretName, existingSecret, applied.apiKey);
      event = { reason: "TenantCreated", message: `tenant ${spec.tenantId} created; API key in Secret ${secretName}` };
    } else if (!existingSecret && this.unsavedApiKeys.has(resource.metadata.uid ?? "")) {
      await this.writeApiKey(
        resource,
        spec,
        secretName,
        undefined,
        this.unsavedApiKeys.get(resource.metadata.uid ?? "")!,
      );
      event = { reason: "TenantCreated", message: `tenant ${spec.tenantId} created; API key in Secret ${secretName}` };
    } else if (!existingSecret) {
      if (spec.apiKeyRecovery === "None") {
        throw blockedError(
          "ApiKeyUnavailable",
          `Secret ${secretName} is missing and the platform reveals a key only at creation; set apiKeyRecovery: Replace to issue a new one`,
        );
      }
      const replaced = await this.deps.platform.tenants
        .replaceApiKey({ tenant: spec.tenantId })
        .catch((error: unknown) => {
          throw fromPlatformError(error, "ReplaceApiKey");
        });
      await this.writeApiKey(resource, spec, secretName, undefined, replaced.apiKey);
      event = {
        reason: "ApiKeyReplaced",
        message: `Secret ${secretName} was missing: the tenant's API keys were revoked and a new one written`,
      };
    }

    const generatedSecret = await this.applyWebhooks(spec, webhookSecret);
    if (generatedSecret) {
      await this.deps.kube.patchSecretData(namespace, secretName, {
        [API_KEY_SECRET_KEYS.webhookSecret]: encodeSecretValue(generatedSecret),
      });
    }

    const tenant = applied.tenant;
    const status: TenantStatus = {
      tenantUuid: tenant?.accountUuid ?? "",
      tenantStatus: tenant?.status ?? "",
      roles: (tenant?.roles ?? []).map((role) => ROLE_NAMES[role] ?? String(role)),
      apiKeySecretName: secretName,
      webhookCount: spec.webhooks.length,
    };
    const pending = tenant?.status && tenant.status !== "APPROVED";
    return {
      status: { ...status },
      conditions: succeeded(
        "Reconciled",
        pending
          ? `tenant ${spec.tenantId} applied (platform status ${tenant?.status})`
          : `tenant ${spec.tenantId} applied`,
      ),
      observed: true,
      event,
    };
  }

  /**
   * With `deletionPolicy: Revoke` (default): once no Issuer or VerifierPolicy references this Tenant
   * any more (precondition; else Degraded/TenantInUse until they are gone), TenantService.DeleteTenant
   * deactivates the platform tenant: API keys revoked, webhooks removed, unknown to every API, its
   * records kept (re-applying the Tenant reactivates it with a new key). `Retain` leaves it alone.
   */
  async finalize(resource: CustomResource): Promise<{ reason: string; message: string }> {
    const parsed = zTenantSpec.safeParse(resource.spec ?? {});
    const status = resource.status as TenantStatus | undefined;
    if (!parsed.success || parsed.data.deletionPolicy === "Retain" || !status?.tenantUuid) {
      return { reason: "PlatformTenantRetained", message: "platform tenant left as it is" };
    }
    const referrers = resourcesReferringTo(resource, this.deps.cache);
    if (referrers.length > 0) {
      const named =
        referrers.slice(0, 5).join(", ") + (referrers.length > 5 ? `, and ${referrers.length - 5} more` : "");
      throw blockedError(
        "TenantInUse",
        `the platform tenant is deleted only once nothing references this Tenant; still referenced by ${named}`,
      );
    }
    const tenant = parsed.data.tenantId;
    const deleted = await this.deps.platform.tenants.deleteTenant({ tenant }).catch((error: unknown) => {
      throw fromPlatformError(error, "DeleteTenant");
    });
    return {
      reason: "PlatformTenantDeleted",
      message: deleted.found
        ? `tenant ${tenant} deactivated: ${deleted.revokedApiKeys} API key(s) revoked, webhooks removed (records kept; re-applying the Tenant reactivates it)`
        : `tenant ${tenant} was not on the platform`,
    };
  }

  /** Issuers and VerifierPolicies naming this Tenant: queued again when its readiness changes. */
  dependents(resource: CustomResource, cache: ResourceCache): string[] {
    return resourcesReferringTo(resource, cache);
  }

  /** Two Tenant resources for one platform tenant would fight: the oldest wins, the others stay Degraded. */
  private assertUniqueTenantId(resource: CustomResource, spec: TenantSpec) {
    const older = olderRival(
      resource,
      this.deps.cache.list("Tenant"),
      (other) => (other.spec as { tenantId?: string } | undefined)?.tenantId === spec.tenantId,
    );
    if (older) {
      throw blockedError(
        "DuplicateTenantId",
        `tenantId ${spec.tenantId} is already declared by Tenant ${older.metadata.namespace}/${older.metadata.name}`,
      );
    }
  }

  private async readWebhookSecret(namespace: string, spec: TenantSpec): Promise<string> {
    const ref = spec.webhookSecretRef;
    if (!ref) return "";
    const secret = await this.deps.kube.getSecret(namespace, ref.name);
    const value = decodeSecretValue(secret, ref.key);
    if (!value) {
      // The Secret may be created right after the Tenant: retry with backoff.
      throw retryableError("WebhookSecretNotFound", `Secret ${ref.name} has no key ${ref.key}`);
    }
    return value;
  }

  private async applyWebhooks(spec: TenantSpec, secret: string): Promise<string | undefined> {
    try {
      const response = await this.deps.platform.tenants.setWebhooks({
        tenant: spec.tenantId,
        webhooks: spec.webhooks.map((webhook) => ({ url: webhook.url, events: webhook.events })),
        secret,
      });
      return response.generatedSecret || undefined;
    } catch (error) {
      const failure = fromPlatformError(error, "SetWebhooks");
      // Nothing declared, nothing lost: an older platform without SetWebhooks is fine then.
      if (failure.reason === "PlatformUnsupported" && spec.webhooks.length === 0 && !spec.webhookSecretRef) {
        return undefined;
      }
      throw failure;
    }
  }

  private async writeApiKey(
    resource: CustomResource,
    spec: TenantSpec,
    secretName: string,
    existing: Secret | undefined,
    apiKey: string,
  ) {
    const namespace = resource.metadata.namespace;
    const uid = resource.metadata.uid ?? "";
    this.unsavedApiKeys.set(uid, apiKey);
    const data = {
      [API_KEY_SECRET_KEYS.apiKey]: encodeSecretValue(apiKey),
      [API_KEY_SECRET_KEYS.tenantId]: encodeSecretValue(spec.tenantId),
    };
    if (existing) {
      // Ours (checked before ApplyTenant) and stale: the key just issued is the only valid one.
      await this.deps.kube.patchSecretData(namespace, secretName, data);
      this.unsavedApiKeys.delete(uid);
      return;
    }
    await this.deps.kube.createSecret({
      metadata: {
        name: secretName,
        namespace,
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, "attesto.dev/tenant": spec.tenantId },
        ownerReferences: [
          {
            apiVersion: API_VERSION,
            kind: "Tenant",
            name: resource.metadata.name,
            uid: resource.metadata.uid ?? "",
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      type: "Opaque",
      data,
    });
    this.unsavedApiKeys.delete(uid);
  }
}
