import { createPrivateKey } from "node:crypto";
import { issuerConfigurationV1 } from "@attesto/proto";
import { Code, ConnectError } from "@connectrpc/connect";
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
import type { ReconcileDeps, ReconcileResult, Reconciler, ResourceCache } from "./reconciler.js";
import { tenantAwaitingCleanup } from "./tenant-references.js";
import { certificateFromBase64Der, fingerprintOf, parsePemCertificates } from "./x509.js";

/** Re-check certificates daily, so that expiry shows up in status before wallets notice. */
const CERTIFICATE_RECHECK_MS = 24 * 60 * 60 * 1000;

/** The finalizer that removes an Issuer's configuration from the credential issuer before it goes. */
export const ISSUER_FINALIZER = "attesto.dev/issuer-cleanup";

/** What the platform cannot take from an Issuer yet (said in the Ready message when it applies). */
export const CERTIFICATE_REF_GAP =
  "certificateRef is validated but not taken into key custody (the platform has no KeyCustodyService.ImportCertificateChain): credentials are signed with the platform-issued certificate";

const SIGNING_MODES = {
  DID: issuerConfigurationV1.SigningMode.DID,
  X509: issuerConfigurationV1.SigningMode.X509,
} as const;

/** `<namespace>/<name>`: how the credential issuer records which Issuer declared a configuration. */
export const issuerNameOf = (resource: CustomResource) => `${resource.metadata.namespace}/${resource.metadata.name}`;

type DeclaredDisplay = IssuerSpec["credentialConfigurations"][number]["display"][number];

/** CRD display entry -> IssuerService CredentialDisplay (unknown extra fields are dropped). */
function toWireDisplay(display: DeclaredDisplay) {
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const logo = (display as { logo?: { uri?: unknown; altText?: unknown } }).logo;
  return {
    name: display.name,
    locale: display.locale ?? "",
    description: text((display as { description?: unknown }).description),
    backgroundColor: text((display as { backgroundColor?: unknown }).backgroundColor),
    textColor: text((display as { textColor?: unknown }).textColor),
    logoUri: text(logo?.uri),
    logoAltText: text(logo?.altText),
  };
}

/**
 * Issuer -> IssuerService.ApplyIssuerConfiguration on the credential issuer, after validation against
 * the platform: the Tenant is Ready with the issuer role, every declared credential configuration is
 * provisioned for it (TenantService.GetTenant), key and certificate references resolve (an X.509
 * signing certificate is issued through KeyCustodyService when none is given). The issuer then lists
 * only these configurations with their display, uses the signing mode as the default of offers that
 * name no DID key, and offerTtlSeconds as the default offer lifetime. The finalizer removes the
 * configuration (DeleteIssuerConfiguration) before the resource goes.
 */
export class IssuerReconciler implements Reconciler {
  readonly kind = "Issuer" as const;
  readonly finalizer = ISSUER_FINALIZER;

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
    // Own spec first (above), then conflicts with other Issuers, then the platform write.
    this.assertOnlyIssuerOfTenant(resource, spec);
    const applied = await this.deps.platform.issuers
      .applyIssuerConfiguration({
        configuration: {
          tenant: tenantId,
          issuerName: issuerNameOf(resource),
          credentialConfigurations: spec.credentialConfigurations.map((declared, index) => ({
            id: ids[index] ?? "",
            display: declared.display.map(toWireDisplay),
          })),
          signingMode: SIGNING_MODES[spec.signingMode],
          signingKeyId: signing.keyId ?? "",
          defaultOfferTtlSeconds: spec.offerTtlSeconds,
        },
      })
      .catch((error: unknown) => {
        throw fromPlatformError(error, "ApplyIssuerConfiguration");
      });
    // The tenantRef moved to another tenant: the configuration this Issuer left there goes.
    const previousTenant = (resource.status as IssuerStatus | undefined)?.tenantId;
    if (previousTenant && previousTenant !== tenantId) await this.deleteOwnConfiguration(resource, previousTenant);

    const status: IssuerStatus = {
      tenantId,
      credentialConfigurationIds: ids,
      signingKeyId: signing.keyId,
      certificateFingerprint: signing.fingerprint,
      certificateNotAfter: signing.notAfter,
      enforcement: "Enforced",
    };
    const digest = applied.configuration?.digest.slice(0, 12) ?? "";
    const message = `issuer configuration applied to tenant ${tenantId} (digest ${digest})`;
    return {
      status: { ...status },
      conditions: succeeded("Applied", spec.certificateRef ? `${message}; ${CERTIFICATE_REF_GAP}` : message),
      observed: true,
      requeueAfterMs: spec.signingMode === "X509" ? CERTIFICATE_RECHECK_MS : undefined,
      event: applied.changed ? { reason: "IssuerConfigurationApplied", message } : undefined,
    };
  }

  /** Removes the configuration this Issuer applied (not one another Issuer declared since). */
  async finalize(resource: CustomResource): Promise<{ reason: string; message: string }> {
    const tenantId = (resource.status as IssuerStatus | undefined)?.tenantId;
    if (!tenantId) return { reason: "NothingToCleanUp", message: "no issuer configuration was applied" };
    const deleted = await this.deleteOwnConfiguration(resource, tenantId);
    return deleted
      ? {
          reason: "IssuerConfigurationDeleted",
          message: `issuer configuration of tenant ${tenantId} deleted; its issuer uses the platform defaults`,
        }
      : { reason: "NothingToCleanUp", message: `tenant ${tenantId} has no issuer configuration from this Issuer` };
  }

  /** A Tenant being deleted waits for its Issuers: queue it again when this one changes or goes. */
  dependents(resource: CustomResource, cache: ResourceCache): string[] {
    return tenantAwaitingCleanup(resource, cache);
  }

  private async deleteOwnConfiguration(resource: CustomResource, tenantId: string): Promise<boolean> {
    const current = await this.deps.platform.issuers
      .getIssuerConfiguration({ tenant: tenantId })
      .catch((error: unknown) => {
        if (ConnectError.from(error).code === Code.NotFound) return undefined;
        throw fromPlatformError(error, "GetIssuerConfiguration");
      });
    if (!current?.configuration || current.configuration.issuerName !== issuerNameOf(resource)) return false;
    const response = await this.deps.platform.issuers
      .deleteIssuerConfiguration({ tenant: tenantId })
      .catch((error: unknown) => {
        throw fromPlatformError(error, "DeleteIssuerConfiguration");
      });
    return response.deleted;
  }

  /** The platform keeps one configuration per tenant: of two Issuers naming one Tenant, the oldest wins. */
  private assertOnlyIssuerOfTenant(resource: CustomResource, spec: IssuerSpec) {
    const rank = (r: CustomResource) =>
      `${r.metadata.creationTimestamp ?? ""}\u0000${r.metadata.namespace}/${r.metadata.name}`;
    const older = this.deps.cache.list("Issuer").find((other) => {
      if (other.metadata.uid === resource.metadata.uid || other.metadata.deletionTimestamp) return false;
      if (other.metadata.namespace !== resource.metadata.namespace) return false;
      if ((other.spec as { tenantRef?: { name?: string } } | undefined)?.tenantRef?.name !== spec.tenantRef.name) {
        return false;
      }
      return rank(other) < rank(resource);
    });
    if (older) {
      throw blockedError(
        "DuplicateIssuer",
        `Tenant ${spec.tenantRef.name} already has Issuer ${older.metadata.namespace}/${older.metadata.name}; a tenant has one issuer configuration`,
      );
    }
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
