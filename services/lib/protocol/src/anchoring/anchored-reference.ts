import { createHash } from "node:crypto";

/**
 * The digest an issuer commits to for a credential: SHA-256 of the issuer-signed JWT of an SD-JWT VC
 * (everything before the first `~`), or of the whole credential string for any other format (an
 * mdoc's base64url IssuerSigned).
 */
export function credentialDigestOf(credential: string): string {
  const issuerSigned = credential.includes("~") ? credential.slice(0, credential.indexOf("~")) : credential;
  return createHash("sha256").update(issuerSigned).digest("hex");
}

/** What the issuer enqueues for notarization: SHA-256(issuer salt || credential digest), over raw bytes. */
export function notarizedDigestOf(issuerSalt: string, credentialDigest: string): string {
  return createHash("sha256")
    .update(Buffer.from(issuerSalt, "hex"))
    .update(Buffer.from(credentialDigest, "hex"))
    .digest("hex");
}

/** A notarization's anchor as the scheduler answers it (GetAnchorProof), free of the wire types. */
export interface AnchorProof {
  state: "pending" | "anchored" | "failed" | "dead";
  salt: string;
  saltedDigest: string;
  batch?: { batchId: string; root: string; leafIndex: number; treeSize: number; inclusionProof: string[] };
  evm?: {
    chainId: number;
    transactionHash: string;
    blockNumber: number;
    blockHash: string;
    from: string;
    to: string;
    confirmations: number;
  };
  ledger?: {
    objectId: string;
    chain: string;
    sequence: number;
    recordedAt: string;
    checkpoint: { treeSize: number; rootHash: string; createdAt: string; signatureJws: string };
    inclusionProof: string[];
  };
  anchoredAt?: string;
}

/**
 * The fields a credential's `reference` carries beside `chain` (issuer) or `block_chain` (holder)
 * and `object_id`: `state` `pending` until the batch is anchored (waiting, retried or
 * dead-lettered alike), then `anchored` with the Merkle proof and, on an EVM chain, the
 * transaction. Everything `attesto notarization verify` needs to check it against the chain alone.
 */
export interface ReferenceFields {
  state: "pending" | "anchored";
  chain_id?: number;
  issuer_salt: string;
  digest: string;
  salt?: string;
  salted_digest?: string;
  inclusion_proof?: { batch_id: string; root: string; leaf_index: number; tree_size: number; path: string[] };
  transaction_hash?: string;
  block_number?: number;
  block_hash?: string;
  from?: string;
  to?: string;
  confirmations?: number;
  ledger?: {
    object_id: string;
    chain: string;
    sequence: number;
    recorded_at: string;
    checkpoint: { tree_size: number; root_hash: string; created_at: string; signature_jws: string };
    inclusion_proof: string[];
  };
  anchored_at?: string;
}

const EIP155 = /^eip155:([0-9]{1,18})$/i;

/** The reference fields of a credential on `chain` whose issuer salt and digest are known, with its anchor once there is one. */
export function referenceFieldsOf(
  chain: string,
  committed: { issuerSalt: string; digest: string },
  proof?: AnchorProof,
): ReferenceFields {
  const chainId = EIP155.exec(chain)?.[1];
  const base: ReferenceFields = {
    state: "pending",
    ...(chainId === undefined ? {} : { chain_id: Number(chainId) }),
    issuer_salt: committed.issuerSalt,
    digest: committed.digest,
  };
  if (proof?.state !== "anchored" || !proof.batch || (!proof.evm && !proof.ledger)) return base;
  const { batch, evm, ledger } = proof;
  return {
    ...base,
    state: "anchored",
    salt: proof.salt,
    salted_digest: proof.saltedDigest,
    inclusion_proof: {
      batch_id: batch.batchId,
      root: batch.root,
      leaf_index: batch.leafIndex,
      tree_size: batch.treeSize,
      path: batch.inclusionProof,
    },
    ...(evm
      ? {
          chain_id: evm.chainId,
          transaction_hash: evm.transactionHash,
          block_number: evm.blockNumber,
          block_hash: evm.blockHash,
          from: evm.from,
          to: evm.to,
          confirmations: evm.confirmations,
        }
      : {}),
    ...(ledger
      ? {
          ledger: {
            object_id: ledger.objectId,
            chain: ledger.chain,
            sequence: ledger.sequence,
            recorded_at: ledger.recordedAt,
            checkpoint: {
              tree_size: ledger.checkpoint.treeSize,
              root_hash: ledger.checkpoint.rootHash,
              created_at: ledger.checkpoint.createdAt,
              signature_jws: ledger.checkpoint.signatureJws,
            },
            inclusion_proof: ledger.inclusionProof,
          },
        }
      : {}),
    ...(proof.anchoredAt ? { anchored_at: proof.anchoredAt } : {}),
  };
}

interface WireTimestamp {
  seconds: bigint;
  nanos: number;
}

/** GetAnchorProofResponse by shape (attesto.notary.v1), so this module needs no generated code. */
export interface AnchorProofWire {
  salt: string;
  saltedDigest: string;
  batch?: { batchId: string; root: string; leafIndex: bigint; treeSize: bigint; inclusionProof: string[] };
  evmAnchor?: {
    chainId: bigint;
    transactionHash: string;
    blockNumber: bigint;
    blockHash: string;
    from: string;
    to: string;
    confirmations: number;
  };
  anchor?: {
    objectId: string;
    chain: string;
    sequence: bigint;
    recordedAt?: WireTimestamp;
    checkpoint?: { treeSize: bigint; rootHash: string; createdAt?: WireTimestamp; signatureJws: string };
    inclusionProof: string[];
  };
  anchoredAt?: WireTimestamp;
}

const isoOf = (timestamp: WireTimestamp | undefined) =>
  timestamp ? new Date(Number(timestamp.seconds) * 1000 + Math.floor(timestamp.nanos / 1e6)).toISOString() : "";

/** The anchor of a GetAnchorProof answer; `state` is the answer's state, already named. */
export function anchorProofFromWire(wire: AnchorProofWire, state: AnchorProof["state"]): AnchorProof {
  const { batch, evmAnchor: evm, anchor: ledger } = wire;
  return {
    state,
    salt: wire.salt,
    saltedDigest: wire.saltedDigest,
    ...(batch
      ? {
          batch: {
            batchId: batch.batchId,
            root: batch.root,
            leafIndex: Number(batch.leafIndex),
            treeSize: Number(batch.treeSize),
            inclusionProof: batch.inclusionProof,
          },
        }
      : {}),
    ...(evm
      ? {
          evm: {
            chainId: Number(evm.chainId),
            transactionHash: evm.transactionHash,
            blockNumber: Number(evm.blockNumber),
            blockHash: evm.blockHash,
            from: evm.from,
            to: evm.to,
            confirmations: evm.confirmations,
          },
        }
      : {}),
    ...(ledger?.checkpoint
      ? {
          ledger: {
            objectId: ledger.objectId,
            chain: ledger.chain,
            sequence: Number(ledger.sequence),
            recordedAt: isoOf(ledger.recordedAt),
            checkpoint: {
              treeSize: Number(ledger.checkpoint.treeSize),
              rootHash: ledger.checkpoint.rootHash,
              createdAt: isoOf(ledger.checkpoint.createdAt),
              signatureJws: ledger.checkpoint.signatureJws,
            },
            inclusionProof: ledger.inclusionProof,
          },
        }
      : {}),
    ...(wire.anchoredAt ? { anchoredAt: isoOf(wire.anchoredAt) } : {}),
  };
}
