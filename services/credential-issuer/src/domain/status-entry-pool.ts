import type { StatusEntryPool, StatusIndexDraws, StatusListRepository, StatusListSigner } from "./ports.js";
import type { StatusEntry } from "./status-lists.js";

/** Entries claimed per refill beyond those asked for: one claim statement per this many credentials. */
export const STATUS_ENTRY_REFILL = 32;

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
