import { notFound } from "@attesto/runtime/errors";
import { appendEntry } from "./append-entry.js";
import { parseLedgerDid } from "./ledger-did.js";
import type { LedgerDependencies } from "./ports.js";

/**
 * Deactivates a DID with a `did.deactivate` entry. Idempotent: deactivating a deactivated DID
 * succeeds and appends nothing. The check runs under the append lock, so two concurrent calls
 * append one entry between them.
 */
export async function deactivateDid(
  { repositories, now }: Pick<LedgerDependencies, "repositories" | "now">,
  did: string,
): Promise<void> {
  const parsed = parseLedgerDid(did);
  await repositories.appends.runSerialized(async ({ entries, dids }) => {
    const record = await dids.find(parsed);
    if (!record) throw notFound("DID not found");
    if (record.deactivated) return;
    const entry = await appendEntry(entries, { kind: "did.deactivate", payload: { did: parsed } }, now());
    await dids.markDeactivated(parsed, { sequence: entry.sequence, at: entry.createdAt });
  });
}
