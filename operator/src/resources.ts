import { isStatusListSize, STATUS_LIST_SIZE_RULE } from "@attesto/runtime/status-list-size";
import { zTenantIdNamed } from "@attesto/runtime/tenant-id";
import { z } from "zod";

/**
 * The operator's custom resources (crds/*.yaml). The apiserver validates them with the CRD schemas and
 * CEL rules; the operator parses them again with these schemas, so that an older apiserver (no CEL)
 * or an object stored before a schema change still cannot push an invalid tenant into the platform.
 */
export const GROUP = "attesto.dev";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;

export const RESOURCE_KINDS = {
  Tenant: { kind: "Tenant", plural: "tenants" },
  Issuer: { kind: "Issuer", plural: "issuers" },
  VerifierPolicy: { kind: "VerifierPolicy", plural: "verifierpolicies" },
} as const;

export type ResourceKind = keyof typeof RESOURCE_KINDS;

/** The platform's tenant identifier rules (@attesto/runtime's tenant-id, as `POST /v1/apply` checks them). */
export const zTenantId = zTenantIdNamed("tenantId");

const zSecretKeyRef = (defaultKey: string) =>
  z.object({ name: z.string().min(1), key: z.string().min(1).default(defaultKey) });

export const zTenantSpec = z.object({
  organizationName: z.string().min(1).max(255),
  tenantId: zTenantId,
  roles: z
    .object({ issuer: z.boolean().default(true), verifier: z.boolean().default(true) })
    .default({ issuer: true, verifier: true })
    .refine((roles) => roles.issuer || roles.verifier, "a tenant needs at least one role (issuer or verifier)"),
  contact: z.object({ email: z.email().max(254).optional() }).optional(),
  webhooks: z
    .array(z.object({ url: z.url({ protocol: /^https?$/ }), events: z.array(z.string().min(1)).default([]) }))
    .max(20)
    .default([]),
  webhookSecretRef: zSecretKeyRef("secret").optional(),
  apiKeySecretName: z.string().min(1).max(253).optional(),
  apiKeyRecovery: z.enum(["Replace", "None"]).default("Replace"),
  deletionPolicy: z.enum(["Revoke", "Retain"]).default("Revoke"),
});
export type TenantSpec = z.infer<typeof zTenantSpec>;

export const zIssuerSpec = z
  .object({
    tenantRef: z.object({ name: z.string().min(1) }),
    credentialConfigurations: z
      .array(
        z.object({
          type: z.string().min(1).max(100),
          version: z.string().min(1).max(32),
          display: z.array(z.object({ name: z.string().min(1), locale: z.string().optional() }).loose()).default([]),
        }),
      )
      .min(1)
      .max(50),
    signingMode: z.enum(["DID", "X509"]).default("DID"),
    keyRef: zSecretKeyRef("private.jwk").optional(),
    certificateRef: z.object({ name: z.string().min(1) }).optional(),
    offerTtlSeconds: z.number().int().min(60).max(86_400).default(3600),
    /** Entries of the tenant's new status lists; absent: the credential issuer's STATUS_LIST_SIZE. */
    statusListSize: z.number().refine(isStatusListSize, STATUS_LIST_SIZE_RULE).optional(),
  })
  .refine((spec) => !spec.certificateRef || spec.signingMode === "X509", "certificateRef requires signingMode X509")
  .refine((spec) => !spec.keyRef || spec.signingMode === "DID", "keyRef requires signingMode DID")
  .refine(
    (spec) =>
      new Set(spec.credentialConfigurations.map((c) => `${c.type}\u0000${c.version}`)).size ===
      spec.credentialConfigurations.length,
    "credentialConfigurations must be unique by type and version",
  );
export type IssuerSpec = z.infer<typeof zIssuerSpec>;

export const zVerifierPolicySpec = z.object({
  tenantRef: z.object({ name: z.string().min(1) }),
  trustedIssuers: z
    .object({
      dids: z
        .array(z.string().regex(/^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/, "must be a DID"))
        .max(200)
        .default([]),
      x509RootsSecretRef: zSecretKeyRef("ca.crt").optional(),
    })
    .default({ dids: [] }),
  acceptedVcts: z.array(z.string().min(1).max(2048)).max(100).default([]),
  requiredClaims: z
    .array(z.string().regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, "must be a dot-separated claim path"))
    .max(100)
    .default([]),
  verificationMode: z.enum(["fail_fast", "run_all"]).default("fail_fast"),
  sessionTtlSeconds: z.number().int().min(60).max(3600).default(300),
  /** UNSAFE: trust any issuer whose key binding verifies, not only listed or platform-registered ones. */
  acceptAnyIssuer: z.boolean().default(false),
  /** Accept a credential whose issuer's status list cannot be read (check revocation, status_unknown). */
  acceptUnknownStatus: z.boolean().default(false),
  /**
   * The tenant's own verifier certificate (a kubernetes.io/tls Secret) for client_id_prefix sessions,
   * imported into key custody; absent: the platform-issued one.
   */
  verifierCertificateRef: z.object({ name: z.string().min(1) }).optional(),
});
export type VerifierPolicySpec = z.infer<typeof zVerifierPolicySpec>;

/** A condition as in the Kubernetes API conventions (metav1.Condition). */
export interface Condition {
  type: ConditionType;
  status: "True" | "False" | "Unknown";
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}
export type ConditionType = "Ready" | "Reconciling" | "Degraded";

export interface ObjectMeta {
  name: string;
  namespace: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A custom resource as read from the apiserver; `spec` is parsed by the reconciler. */
export interface CustomResource<Status extends object = Record<string, unknown>> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: unknown;
  status?: Status & { observedGeneration?: number; conditions?: Condition[] };
}

export interface TenantStatus {
  observedGeneration?: number;
  tenantUuid?: string;
  tenantStatus?: string;
  roles?: string[];
  apiKeySecretName?: string;
  webhookCount?: number;
  conditions?: Condition[];
}

export interface IssuerStatus {
  observedGeneration?: number;
  tenantId?: string;
  credentialConfigurationIds?: string[];
  signingKeyId?: string;
  certificateFingerprint?: string;
  certificateNotAfter?: string;
  enforcement?: "Enforced" | "Recorded";
  conditions?: Condition[];
}

export interface VerifierPolicyStatus {
  observedGeneration?: number;
  tenantId?: string;
  trustedDidCount?: number;
  x509RootFingerprints?: string[];
  /** SHA-256 (hex) and notAfter of the verifier certificate imported from verifierCertificateRef. */
  verifierCertificateFingerprint?: string;
  verifierCertificateNotAfter?: string;
  policyDigest?: string;
  enforcement?: "Enforced" | "Recorded";
  conditions?: Condition[];
}

export type TenantResource = CustomResource<TenantStatus>;
export type IssuerResource = CustomResource<IssuerStatus>;
export type VerifierPolicyResource = CustomResource<VerifierPolicyStatus>;

/** The finalizer that revokes a tenant's platform access before its Tenant resource goes away. */
export const TENANT_FINALIZER = "attesto.dev/tenant-cleanup";
/** Label on the Secrets the operator creates. */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY_VALUE = "attesto-operator";

export const objectKey = (kind: ResourceKind, meta: Pick<ObjectMeta, "namespace" | "name">) =>
  `${kind}/${meta.namespace}/${meta.name}`;

export function parseObjectKey(key: string): { kind: ResourceKind; namespace: string; name: string } {
  const [kind, namespace, name] = key.split("/");
  if (!kind || !(kind in RESOURCE_KINDS) || namespace === undefined || !name) throw new Error(`bad object key ${key}`);
  return { kind: kind as ResourceKind, namespace, name };
}

/** The first issue of a zod error, as `field: message`, for conditions and Events (never the raw input). */
export function describeSpecError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid spec";
  const path = issue.path.length > 0 ? `spec.${issue.path.join(".")}` : "spec";
  return `${path}: ${issue.message}`;
}
