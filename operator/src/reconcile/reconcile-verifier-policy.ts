import { createHash, type X509Certificate } from "node:crypto";
import { verifierPolicyV1 } from "@attesto/proto";
import { succeeded, waiting } from "../controller/conditions.js";
import { decodeSecretValue } from "../kube/kube-client.js";
import {
  type CustomResource,
  describeSpecError,
  type VerifierPolicySpec,
  type VerifierPolicyStatus,
  zTenantSpec,
  zVerifierPolicySpec,
} from "../resources.js";
import { readTenantRef, TenantNotUsableError } from "./read-tenant-ref.js";
import { blockedError, fromPlatformError, retryableError } from "./reconcile-error.js";
import type { ReconcileDeps, ReconcileResult, Reconciler, ResourceCache } from "./reconciler.js";
import { tenantAwaitingCleanup } from "./tenant-references.js";
import {
  importVerifierCertificate,
  readVerifierCertificate,
  releaseVerifierCertificate,
} from "./verifier-certificate.js";
import { fingerprintOf, parsePemCertificates } from "./x509.js";

const ROOTS_RECHECK_MS = 24 * 60 * 60 * 1000;

/** The finalizer that removes the policy from the verifier before its VerifierPolicy resource goes away. */
export const VERIFIER_POLICY_FINALIZER = "attesto.dev/verifier-policy-cleanup";

const MODE = {
  fail_fast: verifierPolicyV1.VerificationMode.FAIL_FAST,
  run_all: verifierPolicyV1.VerificationMode.RUN_ALL,
} as const;

/**
 * VerifierPolicy -> the verifier's VerifierPolicyService: the Tenant is Ready with the verifier role,
 * the X.509 roots Secret holds valid, unexpired CA certificates; the policy is applied under the
 * resource's name for the tenant (idempotent by digest) and the verifier enforces it. The finalizer
 * deletes it from the verifier.
 */
export class VerifierPolicyReconciler implements Reconciler {
  readonly kind = "VerifierPolicy" as const;
  readonly finalizer = VERIFIER_POLICY_FINALIZER;

  constructor(private readonly deps: ReconcileDeps) {}

  async reconcile(resource: CustomResource): Promise<ReconcileResult> {
    const parsed = zVerifierPolicySpec.safeParse(resource.spec ?? {});
    if (!parsed.success) throw blockedError("InvalidSpec", describeSpecError(parsed.error));
    const spec = parsed.data;
    const { namespace, name } = resource.metadata;

    let tenantId: string;
    try {
      tenantId = readTenantRef(this.deps.cache, namespace, spec.tenantRef.name, "verifier").tenantId;
    } catch (error) {
      if (error instanceof TenantNotUsableError) {
        return { status: {}, conditions: waiting(error.reason, error.message), observed: true };
      }
      throw error;
    }

    const roots = await this.readRoots(namespace, spec);
    const rootFingerprints = roots.map(fingerprintOf).sort();
    const verifierCertificateSecret = await readVerifierCertificate(this.deps, resource, spec);

    // The policy moved to another tenant: the old tenant's copy goes first.
    const previousTenant = (resource.status as VerifierPolicyStatus | undefined)?.tenantId;
    if (previousTenant && previousTenant !== tenantId) {
      await this.deletePolicy(previousTenant, name);
      await releaseVerifierCertificate(this.deps, resource, previousTenant);
    }
    // The chain is in key custody before any policy names it, so a new session never finds it missing.
    const certificate = await importVerifierCertificate(this.deps, tenantId, verifierCertificateSecret);
    const policyDigest = policyDigestOf(tenantId, spec, rootFingerprints, certificate.fingerprint);

    const applied = await this.deps.platform.verifierPolicies
      .applyPolicy({
        policy: {
          tenant: tenantId,
          name,
          trustedIssuerDids: spec.trustedIssuers.dids,
          trustedX509RootsDer: roots.map((root) => new Uint8Array(root.raw)),
          acceptedVcts: spec.acceptedVcts,
          requiredClaims: spec.requiredClaims.map((path) => ({ segments: path.split(".") })),
          verificationMode: MODE[spec.verificationMode],
          sessionTtlSeconds: spec.sessionTtlSeconds,
          acceptAnyIssuer: spec.acceptAnyIssuer,
          acceptUnknownStatus: spec.acceptUnknownStatus,
          verifierCertificate: certificate.source,
          digest: policyDigest,
        },
      })
      .catch((error: unknown) => {
        throw fromPlatformError(error, "ApplyPolicy");
      });
    // No longer naming a chain: the policy above stopped using it, now key custody drops it.
    if (!verifierCertificateSecret && previousTenant === tenantId) {
      await releaseVerifierCertificate(this.deps, resource, tenantId);
    }

    const status: VerifierPolicyStatus = {
      tenantId,
      trustedDidCount: spec.trustedIssuers.dids.length,
      x509RootFingerprints: rootFingerprints,
      verifierCertificateFingerprint: certificate.fingerprint,
      verifierCertificateNotAfter: certificate.notAfter,
      policyDigest,
      enforcement: "Enforced",
    };
    const message = `enforced by the verifier for tenant ${tenantId}`;
    return {
      status: { ...status },
      conditions: succeeded("Applied", message),
      observed: true,
      // Daily: expiry shows in status, and a renewed Secret (roots, verifier certificate) is read again.
      requeueAfterMs:
        spec.trustedIssuers.x509RootsSecretRef || spec.verifierCertificateRef ? ROOTS_RECHECK_MS : undefined,
      event:
        applied.changed || certificate.changed
          ? { reason: "PolicyApplied", message: `policy ${policyDigest.slice(0, 12)} ${message}` }
          : undefined,
    };
  }

  /** Deletes the policy from the verifier (idempotent), for the tenant it was applied to. */
  async finalize(resource: CustomResource): Promise<{ reason: string; message: string }> {
    const tenantId = (resource.status as VerifierPolicyStatus | undefined)?.tenantId ?? this.tenantIdOfRef(resource);
    if (!tenantId) return { reason: "PolicyNotApplied", message: "the policy was never applied to a tenant" };
    await this.deletePolicy(tenantId, resource.metadata.name);
    await releaseVerifierCertificate(this.deps, resource, tenantId);
    return { reason: "PolicyDeleted", message: `policy removed from the verifier of tenant ${tenantId}` };
  }

  /** A Tenant being deleted waits for its VerifierPolicies: queue it again when this one changes or goes. */
  dependents(resource: CustomResource, cache: ResourceCache): string[] {
    return tenantAwaitingCleanup(resource, cache);
  }

  private async deletePolicy(tenant: string, name: string): Promise<void> {
    await this.deps.platform.verifierPolicies.deletePolicy({ tenant, name }).catch((error: unknown) => {
      throw fromPlatformError(error, "DeletePolicy");
    });
  }

  /** The tenant id the spec's tenantRef names, when no status recorded one (the status write was lost). */
  private tenantIdOfRef(resource: CustomResource): string | undefined {
    const spec = zVerifierPolicySpec.safeParse(resource.spec ?? {});
    if (!spec.success) return undefined;
    const tenant = this.deps.cache.get("Tenant", resource.metadata.namespace, spec.data.tenantRef.name);
    const tenantSpec = zTenantSpec.safeParse(tenant?.spec ?? {});
    return tenantSpec.success ? tenantSpec.data.tenantId : undefined;
  }

  private async readRoots(namespace: string, spec: VerifierPolicySpec): Promise<X509Certificate[]> {
    const ref = spec.trustedIssuers.x509RootsSecretRef;
    if (!ref) return [];
    const pem = decodeSecretValue(await this.deps.kube.getSecret(namespace, ref.name), ref.key);
    if (!pem) throw retryableError("X509RootsSecretNotFound", `Secret ${ref.name} has no key ${ref.key}`);
    let certificates: X509Certificate[];
    try {
      certificates = parsePemCertificates(pem);
    } catch {
      throw blockedError("InvalidX509Roots", `Secret ${ref.name}/${ref.key} is not a PEM certificate bundle`);
    }
    const now = this.deps.now().getTime();
    for (const certificate of certificates) {
      if (!certificate.ca) {
        throw blockedError("InvalidX509Roots", `${certificate.subject.replace(/\n/g, ", ")} is not a CA certificate`);
      }
      if (new Date(certificate.validTo).getTime() <= now) {
        throw blockedError(
          "X509RootExpired",
          `${certificate.subject.replace(/\n/g, ", ")} expired at ${certificate.validTo}`,
        );
      }
    }
    return certificates;
  }
}

/** SHA-256 over the normalized policy: sorted sets, defaults applied, roots and the verifier certificate by fingerprint. */
export function policyDigestOf(
  tenantId: string,
  spec: VerifierPolicySpec,
  rootFingerprints: string[],
  verifierCertificateFingerprint?: string,
): string {
  const normalized = {
    tenantId,
    trustedDids: [...spec.trustedIssuers.dids].sort(),
    x509Roots: [...rootFingerprints].sort(),
    acceptedVcts: [...spec.acceptedVcts].sort(),
    requiredClaims: [...spec.requiredClaims].sort(),
    verificationMode: spec.verificationMode,
    sessionTtlSeconds: spec.sessionTtlSeconds,
    // Only when set, so that the digests of policies written before the field existed stay the same.
    ...(spec.acceptAnyIssuer ? { acceptAnyIssuer: true } : {}),
    ...(spec.acceptUnknownStatus ? { acceptUnknownStatus: true } : {}),
    ...(verifierCertificateFingerprint ? { verifierCertificate: verifierCertificateFingerprint } : {}),
  };
  return createHash("sha256").update(JSON.stringify(normalized)).digest("hex");
}
