import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  anchorProofFromWire,
  credentialDigestOf,
  notarizedDigestOf,
  referenceFieldsOf,
} from "../src/anchoring/anchored-reference.js";

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest();
const hex = (c: string) => c.repeat(64);
const at = (iso: string) => ({ seconds: BigInt(Date.parse(iso) / 1000), nanos: 250_000_000 });
const batch = { batchId: "b", root: hex("c"), leafIndex: 2n, treeSize: 3n, inclusionProof: [hex("d"), hex("e")] };

describe("notarization references", () => {
  it("digests: the issuer-signed JWT of an SD-JWT VC, the whole string otherwise; salted over raw bytes", () => {
    const jwt = "eyJh.eyJi.c2ln";
    expect(credentialDigestOf(`${jwt}~disclosure~`)).toBe(sha256(jwt).toString("hex"));
    expect(credentialDigestOf("omdkb2NUeXBl")).toBe(sha256("omdkb2NUeXBl").toString("hex"));
    const salt = hex("a");
    const digest = credentialDigestOf(`${jwt}~`);
    expect(notarizedDigestOf(salt, digest)).toBe(
      sha256(Buffer.concat([Buffer.from(salt, "hex"), Buffer.from(digest, "hex")])).toString("hex"),
    );
  });

  it("pending: state, chain id of an eip155 chain, issuer salt and digest only", () => {
    const committed = { issuerSalt: hex("1"), digest: hex("2") };
    expect(referenceFieldsOf("eip155:8453", committed)).toEqual({
      state: "pending",
      chain_id: 8453,
      issuer_salt: hex("1"),
      digest: hex("2"),
    });
    expect(referenceFieldsOf("ledger", committed)).toEqual({
      state: "pending",
      issuer_salt: hex("1"),
      digest: hex("2"),
    });
    // An answer that is not anchored (or anchored without its batch) completes nothing.
    const pending = anchorProofFromWire({ salt: hex("3"), saltedDigest: hex("4"), batch }, "pending");
    expect(referenceFieldsOf("ledger", committed, pending).state).toBe("pending");
    const noBatch = anchorProofFromWire({ salt: hex("3"), saltedDigest: hex("4") }, "anchored");
    expect(referenceFieldsOf("ledger", committed, noBatch).state).toBe("pending");
  });

  it("anchored on an EVM chain: the Merkle proof and the transaction", () => {
    const proof = anchorProofFromWire(
      {
        salt: hex("3"),
        saltedDigest: hex("4"),
        batch,
        evmAnchor: {
          chainId: 31337n,
          transactionHash: `0x${hex("5")}`,
          blockNumber: 9n,
          blockHash: `0x${hex("6")}`,
          from: "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
          to: "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
          confirmations: 2,
        },
        anchoredAt: at("2026-11-29T01:02:03.000Z"),
      },
      "anchored",
    );
    expect(referenceFieldsOf("eip155:31337", { issuerSalt: hex("1"), digest: hex("2") }, proof)).toEqual({
      state: "anchored",
      chain_id: 31337,
      issuer_salt: hex("1"),
      digest: hex("2"),
      salt: hex("3"),
      salted_digest: hex("4"),
      inclusion_proof: { batch_id: "b", root: hex("c"), leaf_index: 2, tree_size: 3, path: [hex("d"), hex("e")] },
      transaction_hash: `0x${hex("5")}`,
      block_number: 9,
      block_hash: `0x${hex("6")}`,
      from: "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      to: "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      confirmations: 2,
      anchored_at: "2026-11-29T01:02:03.250Z",
    });
  });

  it("anchored on the embedded ledger: the Merkle proof and the ledger's record with its checkpoint", () => {
    const proof = anchorProofFromWire(
      {
        salt: hex("3"),
        saltedDigest: hex("4"),
        batch,
        anchor: {
          objectId: "ledger-object",
          chain: "ledger",
          sequence: 41n,
          recordedAt: at("2026-11-29T01:00:00.000Z"),
          checkpoint: {
            treeSize: 42n,
            rootHash: hex("7"),
            createdAt: at("2026-11-29T01:00:01.000Z"),
            signatureJws: "a.b.c",
          },
          inclusionProof: [hex("8")],
        },
      },
      "anchored",
    );
    const fields = referenceFieldsOf("ledger", { issuerSalt: hex("1"), digest: hex("2") }, proof);
    expect(fields).toMatchObject({ state: "anchored", salted_digest: hex("4") });
    expect(fields).not.toHaveProperty("transaction_hash");
    expect(fields.ledger).toEqual({
      object_id: "ledger-object",
      chain: "ledger",
      sequence: 41,
      recorded_at: "2026-11-29T01:00:00.250Z",
      checkpoint: {
        tree_size: 42,
        root_hash: hex("7"),
        created_at: "2026-11-29T01:00:01.250Z",
        signature_jws: "a.b.c",
      },
      inclusion_proof: [hex("8")],
    });
  });
});
