import { notFound } from "@attesto/runtime/errors";
import { parseLedgerDid } from "./ledger-did.js";
import type { LedgerDependencies } from "./ports.js";
import type { DidRecord } from "./records.js";

/** The DID's record (document, deactivation); 400 for a DID that is not did:ledger, 404 when unknown. */
export async function resolveDid(
  { repositories }: Pick<LedgerDependencies, "repositories">,
  did: string,
): Promise<DidRecord> {
  const record = await repositories.dids.find(parseLedgerDid(did));
  if (!record) throw notFound("DID not found");
  return record;
}
