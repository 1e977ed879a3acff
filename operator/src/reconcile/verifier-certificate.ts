import { verifierPolicyV1 } from "@attesto/proto";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { CustomResource, VerifierPolicySpec, VerifierPolicyStatus } from "../resources.js";
import { olderRival } from "./older-rival.js";
import { blockedError, fromPlatformError } from "./reconcile-error.js";
import type { ReconcileDeps } from "./reconciler.js";
import { tenantRefNameOf } from "./tenant-references.js";
import { readTlsSecret, type TlsSecret } from "./tls-secret.js";

/** The verifier certificate a VerifierPolicy names, as applied: what the verifier's sessions sign with. */
export interface AppliedVerifierCertificate {
  /** What the policy tells the verifier (ApplyPolicy's verifier_certificate). */
  source: verifierPolicyV1.VerifierCertificate;
  /** Set for an imported chain. */
  fingerprint?: string;
  notAfter?: string;
  /** Set for an imported chain: whether key custody changed. */
  changed?: boolean;
}

const hasCertificateRef = (resource: CustomResource) =>
  Boolean((resource.spec as { verifierCertificateRef?: unknown } | undefined)?.verifierCertificateRef);

/** Other live VerifierPolicies of the same Tenant that name a verifierCertificateRef. */
const othersWithRef = (deps: ReconcileDeps, resource: CustomResource, tenantRefName: unknown) =>
  deps.cache
    .list("VerifierPolicy")
    .filter(
      (other) =>
        other.metadata.uid !== resource.metadata.uid &&
        !other.metadata.deletionTimestamp &&
        other.metadata.namespace === resource.metadata.namespace &&
        tenantRefNameOf(other) === tenantRefName &&
        hasCertificateRef(other),
    );

/**
 * Reads the policy's verifierCertificateRef Secret (no platform write). A tenant holds one imported
 * verifier certificate: of two policies of one Tenant naming one, the oldest wins and the other is
 * blocked (DuplicateVerifierCertificate).
 */
export async function readVerifierCertificate(
  deps: ReconcileDeps,
  resource: CustomResource,
  spec: VerifierPolicySpec,
): Promise<TlsSecret | undefined> {
  const ref = spec.verifierCertificateRef;
  if (!ref) return undefined;
  const older = olderRival(resource, othersWithRef(deps, resource, spec.tenantRef.name), () => true);
  if (older) {
    throw blockedError(
      "DuplicateVerifierCertificate",
      `VerifierPolicy ${older.metadata.name} of Tenant ${spec.tenantRef.name} already names a verifierCertificateRef; a tenant has one verifier certificate`,
    );
  }
  return readTlsSecret(deps, resource.metadata.namespace, ref.name, "verifier certificate");
}

/** Imports the chain into key custody (ImportVerifierCertificate, idempotent): sessions with a client_id_prefix sign with it. */
export async function importVerifierCertificate(
  deps: ReconcileDeps,
  tenantId: string,
  secret: TlsSecret | undefined,
): Promise<AppliedVerifierCertificate> {
  if (!secret) return { source: verifierPolicyV1.VerifierCertificate.UNSPECIFIED };
  const imported = await deps.platform.keys
    .importVerifierCertificate({ tenant: tenantId, chain: secret.chainDer, privateKeyPem: secret.privateKeyPem })
    .catch((error: unknown) => {
      const connect = ConnectError.from(error);
      if (connect.code === Code.InvalidArgument) {
        throw blockedError("InvalidCertificate", `Secret ${secret.secretName}: ${connect.rawMessage}`, error);
      }
      throw fromPlatformError(error, "ImportVerifierCertificate");
    });
  return {
    source: verifierPolicyV1.VerifierCertificate.IMPORTED,
    fingerprint: imported.fingerprint,
    notAfter: imported.notAfter ? timestampDate(imported.notAfter).toISOString() : undefined,
    changed: imported.changed,
  };
}

/**
 * Drops the tenant's imported verifier certificate once no policy uses it: called after this policy
 * stopped naming one (or is going) when it had imported one (its status says so) and no other live
 * policy of the Tenant names one. Sessions already open keep signing with the key they were created
 * with (key custody keeps it); new sessions get the platform's certificate.
 */
export async function releaseVerifierCertificate(
  deps: ReconcileDeps,
  resource: CustomResource,
  tenantId: string,
): Promise<boolean> {
  const status = resource.status as VerifierPolicyStatus | undefined;
  if (!status?.verifierCertificateFingerprint) return false;
  if (othersWithRef(deps, resource, tenantRefNameOf(resource)).length > 0) return false;
  const response = await deps.platform.keys.clearVerifierCertificate({ tenant: tenantId }).catch((error: unknown) => {
    throw fromPlatformError(error, "ClearVerifierCertificate");
  });
  return response.cleared;
}
