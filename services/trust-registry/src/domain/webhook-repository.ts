/** A webhook endpoint of a tenant. */
export interface TenantWebhook {
  url: string;
  /** Event types delivered to it; empty means every event. */
  events: string[];
}

export interface StoredWebhooks {
  webhooks: TenantWebhook[];
  secretEnvelope: string;
}

/** How the signing secret changed in a replace. */
export type SecretChange = "generated" | "replaced" | "kept";

/** Where tenants' webhook configurations are kept (implemented in store/). */
export interface WebhookRepository {
  /**
   * Replaces the tenant's endpoints atomically (serialized per tenant). The secret becomes
   * `secretEnvelope` when given, else stays as stored, else becomes `generateEnvelope()`.
   * Undefined when the tenant does not exist.
   */
  replace(
    tenant: string,
    webhooks: TenantWebhook[],
    secretEnvelope: string | undefined,
    generateEnvelope: () => string,
  ): Promise<SecretChange | undefined>;
  find(tenant: string): Promise<StoredWebhooks | undefined>;
}
