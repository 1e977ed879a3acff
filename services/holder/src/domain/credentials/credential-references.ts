import { credentialDigestOf, notarizedDigestOf, type ReferenceFields, referenceFieldsOf } from "@attesto/protocol";
import type { StoredCredential } from "../model.js";
import type { HolderDependencies, WarningLog } from "../ports.js";

/** A stored credential's `reference` as the holder shows it: the contract's fields, then the reference fields. */
export type ReferenceView = { block_chain: string; object_id: string } & Partial<ReferenceFields>;

/**
 * `reference.block_chain`: the spec's holder-side value is upper case (`LEDGER`, as the DID
 * method), the issuer's `chain` lower case (`ledger`).
 */
export const blockChainOf = (chain: string) => chain.toUpperCase();

/** The digest the issuer enqueued for this credential, from the credential itself and the issuer's salt. */
const notarizedDigestOfCredential = (raw: string, issuerSalt: string) =>
  notarizedDigestOf(issuerSalt, credentialDigestOf(raw));

/**
 * The reference of a stored credential: `block_chain` and `object_id`, and, when its issuer named
 * its salt, `state` with the digest, then the anchor (Merkle proof, chain transaction) once kept.
 */
export function referenceViewOf(credential: StoredCredential): ReferenceView | undefined {
  const reference = credential.reference;
  if (!reference) return undefined;
  const base = { block_chain: blockChainOf(reference.chain), object_id: reference.objectId };
  if (!reference.issuerSalt) return base;
  const digest = notarizedDigestOfCredential(credential.raw, reference.issuerSalt);
  return {
    ...base,
    ...referenceFieldsOf(reference.chain, { issuerSalt: reference.issuerSalt, digest }, reference.anchor),
  };
}

/**
 * Notarized credentials not known to be anchored yet ask the scheduler for their anchor, naming
 * the digest of their own contents (so a reference that does not belong to the credential never
 * completes); an anchored one is kept. A scheduler that cannot be reached leaves them pending.
 */
export async function withCurrentAnchors<T extends StoredCredential>(
  deps: Pick<HolderDependencies, "credentials" | "notary">,
  credentials: T[],
  log: WarningLog,
): Promise<T[]> {
  return Promise.all(
    credentials.map(async (credential) => {
      const reference = credential.reference;
      if (!reference?.issuerSalt || reference.anchor) return credential;
      try {
        const digest = notarizedDigestOfCredential(credential.raw, reference.issuerSalt);
        const anchor = await deps.notary.anchorProof({ objectId: reference.objectId, digest });
        if (anchor?.state !== "anchored") return credential;
        await deps.credentials.recordAnchor(credential.userUuid, credential.id, anchor);
        return { ...credential, reference: { ...reference, anchor } };
      } catch (error) {
        log.warn({ err: { name: (error as Error)?.name } }, "the credential's notarization could not be read");
        return credential;
      }
    }),
  );
}
