import type { StatusListBits } from "@attesto/protocol";
import type { StatusEntry, StatusIndexDraws, StatusListRepository, StatusListSigner } from "./status-lists.js";

/** Entries claimed per refill beyond those asked for: one claim statement per this many credentials. */
export const STATUS_ENTRY_REFILL = 32;

export interface TakeStatusEntriesInput {
  tenant: string;
  signer: StatusListSigner;
  count: number;
  /** The size of a list opened by a refill (read only then). */
  size: () => Promise<number>;
  bits: StatusListBits;
  now: Date;
}

/**
 * Status list entries claimed ahead of use, so a credential can be signed with its entry before the
 * one statement that records it (issuance-reservation). Unique allocation still holds on every
 * replica: each entry is claimed in the database (`StatusListRepository.allocate`: an inserted
 * `(list, idx)` row) before this process holds it, and this process hands each one out once.
 * Herd privacy holds too: the claimed indexes are uniform among the free ones, and handed out in
 * the order drawn. An entry whose credential was not recorded (nonce spent, allowance exceeded)
 * is given back: nothing outside this process ever saw it. Entries held when the process stops
 * stay claimed and unused (VALID in the list, as any entry of a credential that failed to issue).
 */
export interface StatusEntryPool {
  take(input: TakeStatusEntriesInput): Promise<StatusEntry[]>;
  giveBack(tenant: string, signer: StatusListSigner, entries: StatusEntry[]): void;
}

export function createStatusEntryPool(
  statusLists: Pick<StatusListRepository, "allocate">,
  draws: StatusIndexDraws,
  refill = STATUS_ENTRY_REFILL,
): StatusEntryPool {
  const held = new Map<string, StatusEntry[]>();
  const keyOf = (tenant: string, signer: StatusListSigner) => `${tenant}\n${signer.key}`;
  return {
    async take(input) {
      const key = keyOf(input.tenant, input.signer);
      let entries = held.get(key) ?? [];
      if (entries.length < input.count) {
        const claimed = await statusLists.allocate(
          {
            tenant: input.tenant,
            signer: input.signer,
            count: input.count + refill,
            size: await input.size(),
            bits: input.bits,
            now: input.now,
          },
          draws,
        );
        // Concurrent refills each add theirs: every entry is still claimed once and held once.
        entries = [...(held.get(key) ?? []), ...claimed];
      }
      held.set(key, entries.slice(input.count));
      return entries.slice(0, input.count);
    },
    giveBack(tenant, signer, entries) {
      if (entries.length === 0) return;
      const key = keyOf(tenant, signer);
      held.set(key, [...entries, ...(held.get(key) ?? [])]);
    },
  };
}
