import type { issuerConfigurationV1, keysV1, tenantV1, verifierPolicyV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import type { ConditionUpdate } from "../controller/conditions.js";
import type { KubeClient } from "../kube/kube-client.js";
import type { CustomResource, ResourceKind } from "../resources.js";

/** The platform's internal APIs the operator drives (trust registry). */
export interface Platform {
  tenants: Client<typeof tenantV1.TenantService>;
  keys: Client<typeof keysV1.KeyCustodyService>;
  /** The credential issuer's IssuerService. */
  issuers: Client<typeof issuerConfigurationV1.IssuerService>;
  /** The verifier's VerifierPolicyService. */
  verifierPolicies: Client<typeof verifierPolicyV1.VerifierPolicyService>;
}

/** Read access to the informers' caches. */
export interface ResourceCache {
  get(kind: ResourceKind, namespace: string, name: string): CustomResource | undefined;
  list(kind: ResourceKind): readonly CustomResource[];
}

export interface ReconcileDeps {
  kube: KubeClient;
  platform: Platform;
  cache: ResourceCache;
  now(): Date;
}

/** What one reconcile decided; the controller writes it through the status subresource. */
export interface ReconcileResult {
  /** Kind-specific status fields (merged over the existing status). */
  status: Record<string, unknown>;
  conditions: ConditionUpdate[];
  /** Whether `status.observedGeneration` becomes `metadata.generation` (the spec was fully handled). */
  observed: boolean;
  requeueAfterMs?: number;
  /** A Normal event worth recording (failures are recorded by the controller). */
  event?: { reason: string; message: string };
}

export interface Reconciler {
  kind: ResourceKind;
  /** A finalizer the controller adds before the first reconcile and removes after `finalize`. */
  finalizer?: string;
  /** Brings the platform to the resource's spec. Throws a ReconcileError on failure. */
  reconcile(resource: CustomResource): Promise<ReconcileResult>;
  /** Cleans up platform state before the finalizer is removed. Throws a ReconcileError on failure. */
  finalize?(resource: CustomResource): Promise<{ reason: string; message: string }>;
  /** Resources of other kinds to reconcile again when this one changes (e.g. a Tenant's Issuers). */
  dependents?(resource: CustomResource, cache: ResourceCache): string[];
}
