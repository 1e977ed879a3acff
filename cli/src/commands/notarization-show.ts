import type { notaryV1 } from "@attesto/proto";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { CommandIo } from "./io.js";

/**
 * `attesto notarization show <object_id>` (operator): the anchored reference of a notarization on
 * an EVM chain as JSON, in the shape of a `credential.notarized` event's `data`, ready to hand to a
 * holder or anyone for `attesto notarization verify`. Exit codes: 0 printed, 1 unknown or not
 * anchored on an EVM chain (yet), 2 usage.
 */
export async function runNotarizationShow(
  args: string[],
  notary: Client<typeof notaryV1.NotaryService>,
  io: CommandIo,
): Promise<number> {
  const [objectId, ...extra] = args;
  if (!objectId || extra.length > 0) {
    io.err("usage: attesto notarization show <object_id>");
    return 2;
  }
  let notarization: notaryV1.Notarization | undefined;
  try {
    ({ notarization } = await notary.getNotarization({ objectId }));
  } catch (error) {
    const refused = ConnectError.from(error);
    if (refused.code !== Code.NotFound && refused.code !== Code.InvalidArgument) throw error;
    io.err("attesto: no such notarization");
    return 1;
  }
  const evm = notarization?.evmAnchor;
  const batch = notarization?.batch;
  if (!notarization || !evm || !batch) {
    io.err("attesto: the notarization is not anchored on an EVM chain (yet)");
    return 1;
  }
  const reference = {
    reference: {
      chain: notarization.chain,
      object_id: notarization.objectId,
      chain_id: Number(evm.chainId),
      transaction_hash: evm.transactionHash,
      block_number: Number(evm.blockNumber),
    },
    credential_id: notarization.credentialId,
    digest: notarization.digest,
    salt: notarization.salt,
    salted_digest: notarization.saltedDigest,
    inclusion_proof: {
      batch_id: batch.batchId,
      root: batch.root,
      leaf_index: Number(batch.leafIndex),
      tree_size: Number(batch.treeSize),
      path: batch.inclusionProof,
    },
    evm: {
      chain: evm.chain,
      chain_id: Number(evm.chainId),
      transaction_hash: evm.transactionHash,
      block_number: Number(evm.blockNumber),
      block_hash: evm.blockHash,
      from: evm.from,
      to: evm.to,
      confirmations: evm.confirmations,
    },
  };
  io.out(JSON.stringify(reference, null, 2));
  return 0;
}
