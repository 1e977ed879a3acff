import { createPrivateKey } from "node:crypto";
import { succeeded, waiting } from "../controller/conditions.js";
import { decodeSecretValue } from "../kube/kube-client.js";
import {
  type CustomResource,
  describeSpecError,
  type IssuerSpec,
  type IssuerStatus,
  zIssuerSpec,
} from "../resources.js";
import { readTenantRef, TenantNotUsableError } from "./read-tenant-ref.js";
import { blockedError, fromPlatformError, retryableError } from "./reconcile-error.js";
import type { ReconcileDeps, ReconcileResult, Reconciler } from "./reconciler.js";
import { certificateFromBase64Der, fingerprintOf, parsePemCertificates } from "./x509.js";

/** Re-check certificates daily, so that expiry shows up in status before wallets notice. */
const CERTIFICATE_RECHECK_MS = 24 * 60 * 60 * 1000;

/** What enforcement of an Issuer needs from the platform and is not there yet. */
export const ISSUER_ENFORCEMENT_GAP =
  "recorded only: the platform has no IssuerService.ApplyIssuerConfiguration to enforce display, signing mode and offer TTL";

/**
 * Issuer -> validated against the platform: the Tenant is Ready with the issuer role, every declared
 * credential configuration is provisioned for it (TenantService.GetTenant), key and certificate
 * references resolve (an X.509 signing certificate is issued through KeyCustodyService when none is
 * given). The desired state is recorded in status; nothing enforces it on the platform yet.
 */
export class IssuerReconciler implements Reconciler {
  readonly kind = "Issuer" as const;

  constructor(private readonly deps: ReconcileDeps) {}

  async reconcile(resource: CustomResource): Promise<ReconcileResult> {
    const parsed = zIssuerSpec.safeParse(resource.spec ?? {});
    if (!parsed.success) throw blockedError("InvalidSpec", describeSpecError(parsed.error));
    const spec = parsed.data;
    const namespace = resource.metadata.namespace;

    let tenantId: string;
    try {
      tenantId = readTenantRef(this.deps.cache, namespace, spec.tenantRef.name, "issuer").tenantId;
    } catch (error) {
      if (error instanceof TenantNotUsableError) {
        return { status: {}, conditions: waiting(error.reason, error.message), observed: true };
      }
      throw error;
    }

    const provisioned = await this.deps.platform.tenants.getTenant({ tenant: tenantId }).catch((error: unknown) => {
      throw fromPlatformError(error, "GetTenant");
    });
    const ids: string[] = [];
    const unknown: string[] = [];
    for (const declared of spec.credentialConfigurations) {
      const match = provisioned.credentialConfigurations.find(
        (c) => c.type === declared.type && c.version === declared.version,
      );
      if (match) ids.push(match.id);
      else unknown.push(`${declared.type}@${declared.version}`);
    }
    if (unknown.length > 0) {
      throw blockedError(
        "UnknownCredentialConfiguration",
        `not provisioned for tenant ${tenantId} (register the type in the schema registry): ${unknown.join(", ")}`,
      );
    }

    const signing = await this.checkSigning(namespace, tenantId, spec);
    const status: IssuerStatus = {
      tenantId,
      credentialConfigurationIds: ids,
      signingKeyId: signing.keyId,
      certificateFingerprint: signing.fingerprint,
      certificateNotAfter: signing.notAfter,
      enforcement: "Recorded",
    };
    return {
      status: { ...status },
      conditions: succeeded("Validated", ISSUER_ENFORCEMENT_GAP),
      observed: true,
      requeueAfterMs: spec.signingMode === "X509" ? CERTIFICATE_RECHECK_MS : undefined,
    };
  }

  private async checkSigning(
    namespace: string,
    tenantId: string,
    spec: IssuerSpec,
  ): Promise<{ keyId?: string; fingerprint?: string; notAfter?: string }> {
    if (spec.signingMode === "DID") {
      if (spec.keyRef) {
        const secret = await this.deps.kube.getSecret(namespace, spec.keyRef.name);
        const jwk = decodeSecretValue(secret, spec.keyRef.key);
        if (!jwk) throw retryableError("KeySecretNotFound", `Secret ${spec.keyRef.name} has no key ${spec.keyRef.key}`);
        try {
          createPrivateKey({ key: JSON.parse(jwk), format: "jwk" });
        } catch {
          throw blockedError("InvalidSigningKey", `Secret ${spec.keyRef.name}/${spec.keyRef.key} is not a private JWK`);
        }
      }
      return {};
    }
    if (spec.certificateRef) {
      const secret = await this.deps.kube.getSecret(namespace, spec.certificateRef.name);
      const chainPem = decodeSecretValue(secret, "tls.crt");
      if (!chainPem || !decodeSecretValue(secret, "tls.key")) {
        throw retryableError(
          "CertificateSecretNotFound",
          `Secret ${spec.certificateRef.name} needs tls.crt and tls.key`,
        );
      }
      let leaf: ReturnType<typeof parsePemCertificates>[number] | undefined;
      try {
        leaf = parsePemCertificates(chainPem)[0];
      } catch {
        throw blockedError(
          "InvalidCertificate",
          `Secret ${spec.certificateRef.name}/tls.crt is not a PEM certificate chain`,
        );
      }
      return this.describeLeaf(leaf!);
    }
    const issued = await this.deps.platform.keys.getSigningCertificate({ tenant: tenantId }).catch((error: unknown) => {
      throw fromPlatformError(error, "GetSigningCertificate");
    });
    const leafDer = issued.x5c[0];
    if (!leafDer) throw retryableError("PlatformError", "GetSigningCertificate returned no certificate");
    return { keyId: issued.keyId, ...this.describeLeaf(certificateFromBase64Der(leafDer)) };
  }

  private describeLeaf(leaf: ReturnType<typeof certificateFromBase64Der>) {
    const notAfter = new Date(leaf.validTo);
    if (notAfter.getTime() <= this.deps.now().getTime()) {
      throw blockedError("CertificateExpired", `the signing certificate expired at ${notAfter.toISOString()}`);
    }
    return { fingerprint: fingerprintOf(leaf), notAfter: notAfter.toISOString() };
  }
}
