import { z } from "zod";

const hex64 = z.string().describe("lowercase hex SHA-256");

/**
 * The reference fields beside `chain`/`block_chain` and `object_id` (ReferenceFields), as a response
 * schema: what the OpenAPI documents of the credential issuer and the holder describe.
 */
export const zReferenceFields = z.object({
  state: z
    .enum(["pending", "anchored"])
    .describe("pending until the credential's batch is anchored (waiting, retried or dead-lettered alike)"),
  chain_id: z.number().optional().describe("EIP-155 chain id (an EVM chain)"),
  issuer_salt: hex64.describe("The issuer's 32-byte salt (hex): digest = SHA-256(issuer_salt || SHA-256(issuer JWT))"),
  digest: hex64.describe("What the issuer enqueued for notarization"),
  salt: hex64.optional().describe("The scheduler's salt (anchored)"),
  salted_digest: hex64.optional().describe("SHA-256(salt || digest): the leaf data of the batch tree (anchored)"),
  inclusion_proof: z
    .object({
      batch_id: z.string(),
      root: hex64,
      leaf_index: z.number(),
      tree_size: z.number(),
      path: z.array(z.string()),
    })
    .optional()
    .describe("RFC 9162 inclusion of SHA-256(0x00 || salted_digest) in the batch tree of root (anchored)"),
  transaction_hash: z.string().optional().describe("The anchoring transaction (anchored on an EVM chain)"),
  block_number: z.number().optional(),
  block_hash: z.string().optional(),
  from: z.string().optional().describe("The signer's address"),
  to: z.string().optional().describe("The anchor address"),
  confirmations: z.number().optional().describe("Confirmations when the anchor was recorded"),
  ledger: z
    .object({
      object_id: z.string(),
      chain: z.string(),
      sequence: z.number(),
      recorded_at: z.string(),
      checkpoint: z.object({
        tree_size: z.number(),
        root_hash: z.string(),
        created_at: z.string(),
        signature_jws: z.string(),
      }),
      inclusion_proof: z.array(z.string()),
    })
    .optional()
    .describe("The embedded ledger's record of the batch root and its proof (anchored on the embedded ledger)"),
  anchored_at: z.string().optional(),
});
