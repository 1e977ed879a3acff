import { issuerConfigurationV1 } from "@attesto/proto";
import { Code, ConnectError } from "@connectrpc/connect";
import { succeeded, waiting } from "../controller/conditions.js";
import {
  type CustomResource,
  describeSpecError,
  type IssuerSpec,
  type IssuerStatus,
  zIssuerSpec,
} from "../resources.js";
import { type AppliedSigning, applySigning, clearImportedCertificate, readSigningMaterial } from "./issuer-signing.js";
import { olderRival } from "./older-rival.js";
import { readTenantRef, TenantNotUsableError } from "./read-tenant-ref.js";
import { blockedError, fromPlatformError } from "./reconcile-error.js";
import type { ReconcileDeps, ReconcileResult, Reconciler, ResourceCache } from "./reconciler.js";
import { tenantAwaitingCleanup, tenantRefNameOf } from "./tenant-references.js";

/** Re-check certificates daily, so that expiry shows up in status before wallets notice. */
const CERTIFICATE_RECHECK_MS = 24 * 60 * 60 * 1000;

/** The finalizer that removes an Issuer's configuration from the credential issuer before it goes. */
export const ISSUER_FINALIZER = "attesto.dev/issuer-cleanup";

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
 * provisioned for it (TenantService.GetTenant), key and certificate references resolve. Key custody
 * is then brought to the signing spec (issuer-signing.ts): a certificateRef chain and key are
 * imported (KeyCustodyService.ImportSigningCertificate), otherwise an earlier import is cleared and,
 * for X509, the platform-issued certificate is read. The issuer then lists only these configurations
 * with their display, uses the signing mode as the default of offers that name no DID key, and
 * offerTtlSeconds as the default offer lifetime, statusListSize (when set) as the size of the
 * tenant's new status lists. The finalizer clears the imported certificate and
 * removes the configuration (DeleteIssuerConfiguration) before the resource goes.
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

    const material = await readSigningMaterial(this.deps, namespace, spec);
    // Own spec first (above), then conflicts with other Issuers, then the platform writes.
    this.assertOnlyIssuerOfTenant(resource, spec);
    const signing = await applySigning(this.deps, tenantId, material);
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
          statusListSize: spec.statusListSize ?? 0,
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
    const message = `issuer configuration applied to tenant ${tenantId} (digest ${digest})${signingNote(signing)}`;
    return {
      status: { ...status },
      conditions: succeeded("Applied", message),
      observed: true,
      // Daily: expiry shows in status, and a renewed certificateRef Secret is imported.
      requeueAfterMs: spec.signingMode === "X509" ? CERTIFICATE_RECHECK_MS : undefined,
      event:
        applied.changed || signing.imported?.changed ? { reason: "IssuerConfigurationApplied", message } : undefined,
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

  /**
   * Removes what this Issuer put on the tenant, when the tenant's configuration is still its own:
   * the imported signing certificate first (so a retry still finds the configuration that proves
   * ownership), then the configuration.
   */
  private async deleteOwnConfiguration(resource: CustomResource, tenantId: string): Promise<boolean> {
    const current = await this.deps.platform.issuers
      .getIssuerConfiguration({ tenant: tenantId })
      .catch((error: unknown) => {
        if (ConnectError.from(error).code === Code.NotFound) return undefined;
        throw fromPlatformError(error, "GetIssuerConfiguration");
      });
    if (!current?.configuration || current.configuration.issuerName !== issuerNameOf(resource)) return false;
    await clearImportedCertificate(this.deps, tenantId);
    const response = await this.deps.platform.issuers
      .deleteIssuerConfiguration({ tenant: tenantId })
      .catch((error: unknown) => {
        throw fromPlatformError(error, "DeleteIssuerConfiguration");
      });
    return response.deleted;
  }

  /** The platform keeps one configuration per tenant: of two Issuers naming one Tenant, the oldest wins. */
  private assertOnlyIssuerOfTenant(resource: CustomResource, spec: IssuerSpec) {
    const older = olderRival(
      resource,
      this.deps.cache.list("Issuer"),
      (other) =>
        other.metadata.namespace === resource.metadata.namespace && tenantRefNameOf(other) === spec.tenantRef.name,
    );
    if (older) {
      throw blockedError(
        "DuplicateIssuer",
        `Tenant ${spec.tenantRef.name} already has Issuer ${older.metadata.namespace}/${older.metadata.name}; a tenant has one issuer configuration`,
      );
    }
  }
}

/** What the Ready message says about the signing certificate, when there is one. */
function signingNote(signing: AppliedSigning): string {
  if (!signing.fingerprint) return "";
  const source = signing.imported ? "imported from certificateRef into key custody" : "issued by the platform CA";
  return `; signing certificate ${signing.fingerprint.slice(0, 16)} ${source}`;
}
