/**
 * The status list size rules (Token Status List), the only copy: the credential issuer checks
 * STATUS_LIST_SIZE and an issuer configuration's status_list_size (IssuerService) with these, the
 * operator and the CLI check `Issuer.spec.statusListSize`; the Issuer CRD's schema lists the same
 * sizes, and test/k8s/crds.test.ts fails when it no longer does.
 */

/** Entries of a new status list unless configured: 2^17 (herd privacy; 32 KiB before compression). */
export const DEFAULT_STATUS_LIST_SIZE = 2 ** 17;
/**
 * The herd privacy floor: a list fetch must hide which of at least this many entries is checked,
 * even while the list holds few credentials.
 */
export const MIN_STATUS_LIST_SIZE = 2 ** 10;
export const MAX_STATUS_LIST_SIZE = 2 ** 20;

/** The sizes allowed, in words: `STATUS_LIST_SIZE: must be ${STATUS_LIST_SIZES}`. */
export const STATUS_LIST_SIZES = `a power of two from ${MIN_STATUS_LIST_SIZE} to ${MAX_STATUS_LIST_SIZE}`;
export const STATUS_LIST_SIZE_RULE = `must be ${STATUS_LIST_SIZES}`;

/** Status list sizes allowed: powers of two from 2^10 to 2^20 (whole bytes at any `bits`). */
export const isStatusListSize = (size: number): boolean =>
  Number.isInteger(size) && size >= MIN_STATUS_LIST_SIZE && size <= MAX_STATUS_LIST_SIZE && (size & (size - 1)) === 0;
