import { deflateSync, inflateSync } from "node:zlib";

/**
 * Token Status List (IETF draft-ietf-oauth-status-list): the byte array of a Status List and its
 * compressed `lst` encoding. Each index owns `bits` contiguous bits, packed into bytes from the
 * least significant bit to the most significant one (index 0 is bits 0..bits-1 of byte 0).
 */

/** Status Type values of the draft's registry. */
export const STATUS_TYPE = { valid: 0x00, invalid: 0x01, suspended: 0x02 } as const;
export type StatusTypeName = keyof typeof STATUS_TYPE;

/** Bits per referenced token this platform uses: 2 (room for VALID, INVALID, SUSPENDED). */
export const STATUS_LIST_BITS = 2;

export type StatusListBits = 1 | 2 | 4 | 8;

export class StatusListError extends Error {
  override name = "StatusListError";
}

/** Bytes needed for `size` entries of `bits` bits each. */
export const statusListByteLength = (size: number, bits: StatusListBits): number => Math.ceil((size * bits) / 8);

function position(index: number, bits: StatusListBits, byteLength: number) {
  if (!Number.isInteger(index) || index < 0 || index >= (byteLength * 8) / bits) {
    throw new StatusListError(`status list index ${index} is out of bounds`);
  }
  const bitOffset = index * bits;
  return { byte: bitOffset >> 3, shift: bitOffset & 7, mask: (1 << bits) - 1 };
}

/** The status value at `index`. */
export function statusAt(bytes: Uint8Array, index: number, bits: StatusListBits): number {
  const { byte, shift, mask } = position(index, bits, bytes.length);
  return ((bytes[byte] ?? 0) >> shift) & mask;
}

/** Sets the status value at `index` in place. */
export function setStatusAt(bytes: Uint8Array, index: number, bits: StatusListBits, value: number): void {
  const { byte, shift, mask } = position(index, bits, bytes.length);
  if (!Number.isInteger(value) || value < 0 || value > mask) {
    throw new StatusListError(`status value ${value} does not fit in ${bits} bits`);
  }
  bytes[byte] = ((bytes[byte] ?? 0) & ~(mask << shift)) | (value << shift);
}

/** `lst`: base64url of the byte array compressed with DEFLATE in the ZLIB format, highest level. */
export function compressStatusList(bytes: Uint8Array): string {
  return deflateSync(bytes, { level: 9 }).toString("base64url");
}

/**
 * The byte array of an `lst` (ZLIB/DEFLATE); StatusListError when it is not one, or when it would
 * inflate past `maxBytes` (a list read from elsewhere: a few compressed bytes must not fill memory).
 */
export function decompressStatusList(lst: string, maxBytes?: number): Uint8Array {
  try {
    return new Uint8Array(
      inflateSync(Buffer.from(lst, "base64url"), maxBytes === undefined ? {} : { maxOutputLength: maxBytes }),
    );
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new StatusListError("the status list is larger than this platform reads", { cause: error });
    }
    throw new StatusListError("lst is not base64url ZLIB-compressed data", { cause: error });
  }
}
