import { type CredentialStatusReading, readCredentialStatus, type StatusListEntryReference } from "@attesto/protocol";
import type { PresentationUnderVerification, VerificationContext } from "../checks/check.js";
import { issuerKeyOf } from "../issuer-key/issuer-key-of.js";

/** A credential's status by its issuer's Status List, or why none can be stated. */
export type CredentialStatus = CredentialStatusReading;

/**
 * The status of a credential whose issuer signature verified, from the Status List Token its
 * `status.status_list` points to (readCredentialStatus: `sub`, expiry, `iss`, signature, value at
 * `idx`). The token must be signed by a key bound to the credential's `iss` exactly as the
 * credential's own key is (same DID, the issuer's JWT VC Issuer Metadata, or an x5c chain naming
 * `iss` up to this verifier's trust anchors: issuerKeyOf).
 */
export async function credentialStatusOf(
  presentation: PresentationUnderVerification & { issuer: { iss: string } },
  reference: StatusListEntryReference,
  context: VerificationContext,
): Promise<CredentialStatus> {
  const iss = presentation.issuer.iss;
  return readCredentialStatus({
    source: context.ports.statusLists,
    reference,
    iss,
    now: context.now,
    clockSkewSeconds: context.limits.clockSkewSeconds,
    async keyOf(header) {
      const key = await issuerKeyOf(header, iss, context);
      return "outcome" in key ? { unbound: key.outcome.message } : { jwk: key.jwk };
    },
  });
}
