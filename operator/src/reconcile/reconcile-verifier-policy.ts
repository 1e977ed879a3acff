import { createHash } from "node:crypto";
import { succeeded, waiting } from "../controller/conditions.js";
import { decodeSecretValue } from "../kube/kube-client.js";
import {
  type CustomResource,
  describeSpecError,
  type VerifierPolicySpec,
  type VerifierPolicyStatus,
  zVerifierPolicySpec,
} from "../resources.js";
import { readTenantRef, TenantNotUsableError } from "./read-tenant-ref.js";
import { blockedError, retryableError } from "./reconcile-error.js";
import type { ReconcileDeps, ReconcileResult, Reconciler } from "./reconciler.js";
import { fingerprintOf, parsePemCertificates } from "./x509.js";

const ROOTS_RECHECK_MS = 24 * 60 * 60 * 1000;

export const VERIFIER_POLICY_ENFORCEMENT_GAP =
  "recorded only: the platform has no VerifierPolicyService.ApplyPolicy; the verifier does not enforce this policy yet";

/**
 * VerifierPolicy -> validated: the Tenant is Ready with the verifier role, the X.509 roots Secret
 * holds valid, unexpired CA certificates. The normalized policy and its digest are recorded in status
 * for the platform-side VerifierPolicyService (not there yet) to enforce.
 */
export class VerifierPolicyReconciler implements Reconciler {
  readonly kind = "VerifierPolicy" as const;

  constructor(private readonly deps: ReconcileDeps) {}

  async reconcile(resource: CustomResource): Promise<ReconcileResult> {
    const parsed = zVerifierPolicySpec.safeParse(resource.spec ?? {});
    if (!parsed.success) throw blockedError("InvalidSpec", describeSpecError(parsed.error));
    const spec = parsed.data;
    const namespace = resource.metadata.namespace;

    let tenantId: string;
    try {
      tenantId = readTenantRef(this.deps.cache, namespace, spec.tenantRef.name, "verifier").tenantId;
    } catch (error) {
      if (error instanceof TenantNotUsableError) {
        return { status: {}, conditions: waiting(error.reason, error.message), observed: true };
      }
      throw error;
    }

    const rootFingerprints = await this.readRoots(namespace, spec);
    const status: VerifierPolicyStatus = {
      tenantId,
      trustedDidCount: spec.trustedIssuers.dids.length,
      x509RootFingerprints: rootFingerprints,
      policyDigest: policyDigestOf(tenantId, spec, rootFingerprints),
      enforcement: "Recorded",
    };
    return {
      status: { ...status },
      conditions: succeeded("Validated", VERIFIER_POLICY_ENFORCEMENT_GAP),
      observed: true,
      requeueAfterMs: spec.trustedIssuers.x509RootsSecretRef ? ROOTS_RECHECK_MS : undefined,
    };
  }

  private async readRoots(namespace: string, spec: VerifierPolicySpec): Promise<string[]> {
    const ref = spec.trustedIssuers.x509RootsSecretRef;
    if (!ref) return [];
    const pem = decodeSecretValue(await this.deps.kube.getSecret(namespace, ref.name), ref.key);
    if (!pem) throw retryableError("X509RootsSecretNotFound", `Secret ${ref.name} has no key ${ref.key}`);
    let certificates: ReturnType<typeof parsePemCertificates>;
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
    return certificates.map(fingerprintOf).sort();
  }
}

/** SHA-256 over the normalized policy: sorted sets, defaults applied, roots by fingerprint. */
export function policyDigestOf(tenantId: string, spec: VerifierPolicySpec, rootFingerprints: string[]): string {
  const normalized = {
    tenantId,
    trustedDids: [...spec.trustedIssuers.dids].sort(),
    x509Roots: [...rootFingerprints].sort(),
    acceptedVcts: [...spec.acceptedVcts].sort(),
    requiredClaims: [...spec.requiredClaims].sort(),
    verificationMode: spec.verificationMode,
    sessionTtlSeconds: spec.sessionTtlSeconds,
  };
  return createHash("sha256").update(JSON.stringify(normalized)).digest("hex");
}
