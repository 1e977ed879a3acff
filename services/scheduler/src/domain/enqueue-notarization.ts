import { randomUUID } from "node:crypto";
import { badRequest, conflict } from "@attesto/runtime/errors";
import { requireTenant } from "./inputs.js";
import type { Notarization } from "./model.js";
import type { SchedulerDependencies } from "./ports.js";
import { newSalt, SHA256_HEX, saltDigest } from "./salted-digest.js";

export interface EnqueueInput {
  tenant: string;
  credentialId: string;
  digest: string;
  requireLedgerReachable: boolean;
  /** The issuer's offer id ("" = none). */
  offerId?: string;
}

const MAX_ID_LENGTH = 255;

function parseEnqueueInput(input: EnqueueInput): {
  tenant: string;
  credentialId: string;
  digest: string;
  offerId: string | undefined;
} {
  const tenant = requireTenant(input.tenant);
  if (!input.credentialId || input.credentialId.length > MAX_ID_LENGTH) {
    throw badRequest(`credential_id is required (at most ${MAX_ID_LENGTH} characters)`);
  }
  if (!SHA256_HEX.test(input.digest)) throw badRequest("digest must be a SHA-256 digest: 64 lowercase hex characters");
  if ((input.offerId?.length ?? 0) > MAX_ID_LENGTH) {
    throw badRequest(`offer_id must be at most ${MAX_ID_LENGTH} characters`);
  }
  return { tenant, credentialId: input.credentialId, digest: input.digest, offerId: input.offerId || undefined };
}

/**
 * Records a credential for notarization and answers its reference at once. The object id is a
 * random UUID chosen here, unrelated to the digest and to the ledger record of its batch (which
 * does not exist yet), so the reference the issuer returns synchronously never changes.
 * Idempotent per credential id; the batch cutter picks the record up.
 */
export async function enqueueNotarization(
  deps: Pick<SchedulerDependencies, "notarizations" | "ledger" | "metrics" | "chain" | "batch">,
  input: EnqueueInput,
): Promise<Notarization> {
  const { tenant, credentialId, digest, offerId } = parseEnqueueInput(input);
  const existing = await deps.notarizations.findNotarizationByCredential(credentialId);
  if (existing) return sameRequestOrConflict(existing, tenant, digest);
  // with notarize_on_ledger the caller answers 503 when the ledger is unreachable.
  if (input.requireLedgerReachable) await deps.ledger.probe();
  const salt = newSalt();
  const objectId = randomUUID();
  const stored = await deps.notarizations.insertNotarization({
    objectId,
    chain: deps.chain,
    tenant,
    credentialId,
    offerId,
    digest,
    salt,
    saltedDigest: saltDigest(salt, digest),
  });
  // A concurrent first call may have won the insert: then its record is the answer.
  if (stored.objectId === objectId) {
    deps.metrics.enqueued();
    deps.batch.enqueued.wake();
  }
  return sameRequestOrConflict(stored, tenant, digest);
}

function sameRequestOrConflict(existing: Notarization, tenant: string, digest: string): Notarization {
  if (existing.tenant !== tenant || existing.digest !== digest) {
    throw conflict("credential_id was already enqueued with another tenant or digest");
  }
  return existing;
}
