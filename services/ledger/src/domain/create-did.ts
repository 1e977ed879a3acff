import { appendEntry } from "./append-entry.js";
import { createDidDocument, type DidDocument } from "./did-document.js";
import { keyIdOf, newLedgerDid } from "./ledger-did.js";
import { parsePublicJwk } from "./parse-public-jwk.js";
import type { LedgerDependencies } from "./ports.js";

export interface CreatedDid {
  did: string;
  keyId: string;
  document: DidDocument;
  sequence: number;
}

/** Anchors a new did:ledger DID for an Ed25519 public key: a `did.create` entry carrying its document. */
export async function createDid(
  { repositories, now }: Pick<LedgerDependencies, "repositories" | "now">,
  publicJwkJson: string,
): Promise<CreatedDid> {
  const publicJwk = parsePublicJwk(publicJwkJson);
  const did = newLedgerDid();
  const keyId = keyIdOf(did);
  const document = createDidDocument(did, publicJwk);
  return repositories.appends.runSerialized(async ({ entries, dids }) => {
    const entry = await appendEntry(entries, { kind: "did.create", payload: { did, document } }, now());
    await dids.insert({
      did,
      keyId,
      publicJwk,
      document,
      deactivated: false,
      createdSequence: entry.sequence,
      deactivatedSequence: undefined,
      createdAt: entry.createdAt,
      updatedAt: entry.createdAt,
    });
    return { did, keyId, document, sequence: entry.sequence };
  });
}
