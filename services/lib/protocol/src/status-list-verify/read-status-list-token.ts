import { decodeCompactJwt, isJsonObject, type JsonObject } from "../sd-jwt-verify/decode-compact-jwt.js";
import { SdJwtVerificationError } from "../sd-jwt-verify/sd-jwt-verification-error.js";
import { STATUS_LIST_JWT_TYP } from "../status-list/sign-status-list-token.js";
import { decompressStatusList, type StatusListBits, StatusListError, statusAt } from "../status-list/status-list.js";

/**
 * Reading Token Status Lists (IETF draft-ietf-oauth-status-list) as a relying party or holder:
 * the `status.status_list` reference of a credential, the Status List Token it points to, and the
 * status value of one index. Signature and key binding are the caller's (they depend on how the
 * credential's issuer key was bound).
 */

/** Largest uncompressed status list read: 2 MiB (8 Mi entries at 2 bits); a bigger one is refused, not inflated. */
export const MAX_STATUS_LIST_BYTES = 2 * 1024 * 1024;

/** A Status List Token or reference that cannot be used; the message is safe to show. */
export class StatusListTokenError extends Error {
  override name = "StatusListTokenError";
}

/** A credential's `status.status_list` claim. */
export interface StatusListEntryReference {
  idx: number;
  uri: string;
}

/**
 * The `status.status_list` reference of a credential payload: undefined when the credential has
 * no `status.status_list` (nothing to check); StatusListTokenError when it has one that is not a
 * non-negative integer `idx` and an absolute URI `uri`.
 */
export function statusListReferenceOf(payload: JsonObject): StatusListEntryReference | undefined {
  const status = payload.status;
  if (status === undefined) return undefined;
  if (!isJsonObject(status)) throw new StatusListTokenError("the credential's status claim is not an object");
  const reference = status.status_list;
  if (reference === undefined) return undefined;
  if (!isJsonObject(reference)) throw new StatusListTokenError("the credential's status_list is not an object");
  const { idx, uri } = reference;
  if (typeof idx !== "number" || !Number.isSafeInteger(idx) || idx < 0) {
    throw new StatusListTokenError("the credential's status_list idx is not a non-negative integer");
  }
  if (typeof uri !== "string" || !URL.canParse(uri)) {
    throw new StatusListTokenError("the credential's status_list uri is not an absolute URI");
  }
  return { idx, uri };
}

/** A Status List Token whose structure was checked (not its signature, `sub` or expiry). */
export interface DecodedStatusListToken {
  compact: string;
  header: JsonObject;
  payload: JsonObject;
  /** `sub`: the URI the list is published at. */
  subject: string;
  /** `iat`, `exp` (Unix seconds) and `ttl` (seconds), as the token states them. */
  issuedAt: number;
  expiresAt: number | undefined;
  ttlSeconds: number | undefined;
  bits: StatusListBits;
  /** The uncompressed byte array. */
  bytes: Uint8Array;
}

const isBits = (value: unknown): value is StatusListBits => value === 1 || value === 2 || value === 4 || value === 8;
const isTime = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;

/** `lst`: base64url of ZLIB-compressed (DEFLATE) bytes, inflated to at most `maxBytes`. */
function inflateList(lst: unknown, maxBytes: number): Uint8Array {
  if (typeof lst !== "string" || !/^[A-Za-z0-9_-]+$/.test(lst)) {
    throw new StatusListTokenError("the status list lst is not a base64url string");
  }
  try {
    return decompressStatusList(lst, maxBytes);
  } catch (error) {
    if (error instanceof StatusListError) throw new StatusListTokenError(error.message, { cause: error });
    throw error;
  }
}

/**
 * Decodes a Status List Token in JWT format and checks its structure: `typ` statuslist+jwt, the
 * required `sub`, `iat` and `status_list` ({`bits` 1/2/4/8, `lst`}), a numeric `exp` and a positive
 * `ttl` when present. The list is inflated at most to `maxBytes`.
 */
export function decodeStatusListToken(compact: string, maxBytes = MAX_STATUS_LIST_BYTES): DecodedStatusListToken {
  let decoded: ReturnType<typeof decodeCompactJwt>;
  try {
    decoded = decodeCompactJwt(compact.trim(), "status_list_invalid", "the Status List Token");
  } catch (error) {
    if (error instanceof SdJwtVerificationError) throw new StatusListTokenError(error.message);
    throw error;
  }
  const { header, payload } = decoded;
  if (header.typ !== STATUS_LIST_JWT_TYP) {
    throw new StatusListTokenError(`the Status List Token's typ is not ${STATUS_LIST_JWT_TYP}`);
  }
  if (typeof payload.sub !== "string" || payload.sub === "") {
    throw new StatusListTokenError("the Status List Token has no sub");
  }
  if (!isTime(payload.iat)) throw new StatusListTokenError("the Status List Token has no numeric iat");
  if (payload.exp !== undefined && !isTime(payload.exp)) {
    throw new StatusListTokenError("the Status List Token's exp is not a number");
  }
  if (
    payload.ttl !== undefined &&
    !(typeof payload.ttl === "number" && Number.isFinite(payload.ttl) && payload.ttl > 0)
  ) {
    throw new StatusListTokenError("the Status List Token's ttl is not a positive number");
  }
  const list = payload.status_list;
  if (!isJsonObject(list)) throw new StatusListTokenError("the Status List Token has no status_list object");
  if (!isBits(list.bits)) throw new StatusListTokenError("the status list bits is not 1, 2, 4 or 8");
  return {
    compact: decoded.compact,
    header,
    payload,
    subject: payload.sub,
    issuedAt: payload.iat,
    expiresAt: payload.exp as number | undefined,
    ttlSeconds: payload.ttl as number | undefined,
    bits: list.bits,
    bytes: inflateList(list.lst, maxBytes),
  };
}

/**
 * The draft's checks of a decoded token against the credential that points to it: `sub` equals
 * the reference's `uri`, and the token has not expired (`exp`, with `clockSkewSeconds` tolerance).
 */
export function checkStatusListToken(
  token: DecodedStatusListToken,
  expected: { uri: string; now: Date; clockSkewSeconds: number },
): void {
  if (token.subject !== expected.uri) {
    throw new StatusListTokenError("the Status List Token's sub is not the credential's status_list uri");
  }
  if (token.expiresAt !== undefined && token.expiresAt + expected.clockSkewSeconds <= expected.now.getTime() / 1000) {
    throw new StatusListTokenError("the Status List Token has expired");
  }
}

/**
 * The status value at `idx`: each index owns `bits` contiguous bits, packed from the least
 * significant bit of a byte to the most significant one. An index past the list is an error (the
 * draft: no statement can be made).
 */
export function statusValueAt(token: Pick<DecodedStatusListToken, "bits" | "bytes">, idx: number): number {
  try {
    return statusAt(token.bytes, idx, token.bits);
  } catch (error) {
    if (error instanceof StatusListError) {
      throw new StatusListTokenError("the credential's status_list idx is beyond the status list", { cause: error });
    }
    throw error;
  }
}

/** What a status value means (the draft's Status Types registry); 0x03 and others: no meaning here. */
export type CredentialStatusName = "valid" | "invalid" | "suspended";

export function statusNameOf(value: number): CredentialStatusName | undefined {
  return value === 0 ? "valid" : value === 1 ? "invalid" : value === 2 ? "suspended" : undefined;
}
