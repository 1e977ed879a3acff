import { type AnchorProof, notarizedDigestOf, type ReferenceFields, referenceFieldsOf } from "@attesto/protocol";
import type { CredentialRecord } from "./credential-record.js";
import type { IssuerDependencies } from "./ports.js";

/** A notarized credential's `reference`: the contract's `chain` and `object_id`, then the reference fields. */
export type CredentialReference = { chain: string; object_id: string } & ReferenceFields;

/**
 * The reference of a notarized credential from its record: `state: "pending"` with the issuer salt
 * and digest, and, given its anchor, `anchored` with the Merkle proof and the chain transaction.
 */
export function referenceOf(
  record: Pick<CredentialRecord, "issuerJwtSha256">,
  notarization: NonNullable<CredentialRecord["notarization"]>,
  proof?: AnchorProof,
): CredentialReference {
  const digest = notarizedDigestOf(notarization.salt, record.issuerJwtSha256);
  return {
    chain: notarization.chain,
    object_id: notarization.objectId,
    ...referenceFieldsOf(notarization.chain, { issuerSalt: notarization.salt, digest }, proof),
  };
}

/** The current reference of a notarized credential, its anchor asked of the scheduler (503 when it cannot be reached). */
export async function currentReferenceOf(
  deps: Pick<IssuerDependencies, "notary">,
  record: CredentialRecord,
): Promise<CredentialReference | null> {
  const notarization = record.notarization;
  if (!notarization) return null;
  const pending = referenceOf(record, notarization);
  const proof = await deps.notary.anchorProof({ objectId: notarization.objectId, digest: pending.digest });
  return proof ? referenceOf(record, notarization, proof) : pending;
}
