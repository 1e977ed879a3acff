import { merkleRoot } from "@attesto/protocol";
import { fromHex, toHex } from "./hashes.js";
import type { Checkpointing, CheckpointRepository, CheckpointSigner, LedgerEntryRepository } from "./ports.js";
import type { Checkpoint } from "./records.js";

/**
 * Checkpoints of the log: the RFC 6962 root over every leaf hash, signed. One refresh runs at a time
 * per process (concurrent callers share it); several processes may race, and the repository keeps
 * the first checkpoint of each tree size, which all of them compute identically.
 */
export function createCheckpointing(dependencies: {
  entries: LedgerEntryRepository;
  checkpoints: CheckpointRepository;
  signer: CheckpointSigner;
  now: () => Date;
}): Checkpointing {
  const { entries, checkpoints, signer, now } = dependencies;
  let inFlight: Promise<Checkpoint> | undefined;

  async function signCheckpoint(): Promise<Checkpoint> {
    const [latest, treeSize] = await Promise.all([checkpoints.latest(), entries.size()]);
    if (latest && latest.treeSize >= treeSize) return latest;
    const leafHashes = await entries.leafHashes(treeSize);
    const rootHash = toHex(merkleRoot(leafHashes.map(fromHex)));
    const createdAt = now();
    const signatureJws = await signer.sign({
      tree_size: treeSize,
      root_hash: rootHash,
      created_at: createdAt.toISOString(),
    });
    return checkpoints.insertIfAbsent({ treeSize, rootHash, createdAt, signatureJws });
  }

  const refresh = (): Promise<Checkpoint> => {
    inFlight ??= signCheckpoint().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  return {
    latest: () => checkpoints.latest(),
    refresh,
    async ensureCovering(sequence) {
      const latest = await checkpoints.latest();
      if (latest && latest.treeSize > sequence) return latest;
      // A refresh already running may have read the log before `sequence` was written; the next one cannot.
      const joined = await refresh();
      if (joined.treeSize > sequence) return joined;
      return refresh();
    },
  };
}
