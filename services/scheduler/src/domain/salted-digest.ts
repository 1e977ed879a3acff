import { createHash, randomBytes } from "node:crypto";

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** SHA-256(salt || digest) over the raw bytes, both given and returned as lowercase hex. */
export const saltDigest = (saltHex: string, digestHex: string): string =>
  createHash("sha256").update(Buffer.from(saltHex, "hex")).update(Buffer.from(digestHex, "hex")).digest("hex");

/**
 * A fresh 32-byte salt. The ledger is public and permanent: salting keeps a batch root (and a
 * published inclusion proof) from confirming a guessed credential digest.
 */
export const newSalt = (): string => randomBytes(32).toString("hex");
