/** Entries of a new status list unless configured: 2^17 (herd privacy; 32 KiB before compression). */
export const DEFAULT_STATUS_LIST_SIZE = 2 ** 17;
export const MIN_STATUS_LIST_SIZE = 2 ** 10;
export const MAX_STATUS_LIST_SIZE = 2 ** 20;

export const STATUS_LIST_SIZE_RULE = `must be a power of two from ${MIN_STATUS_LIST_SIZE} to ${MAX_STATUS_LIST_SIZE}`;

/** Status list sizes allowed: powers of two from 2^10 to 2^20 (whole bytes at any `bits`). */
export const isStatusListSize = (size: number): boolean =>
  Number.isInteger(size) && size >= MIN_STATUS_LIST_SIZE && size <= MAX_STATUS_LIST_SIZE && (size & (size - 1)) === 0;
