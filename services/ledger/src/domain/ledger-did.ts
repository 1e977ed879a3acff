import { randomBytes } from "node:crypto";
import { base58btcDecode, base58btcEncode } from "@attesto/protocol";
import { badRequest } from "@attesto/runtime/errors";

/**
 * `did:ledger:<id>`: the method-specific id is 16 random bytes (128 bits, collision-free in practice)
 * in base58btc, the encoding most DID methods use for opaque ids (did:sov, did:cheqd): only
 * letters and digits, no look-alikes, 21 or 22 characters. Unguessable, so a DID reveals neither its
 * owner nor how many DIDs exist.
 */
export const LEDGER_DID_PREFIX = "did:ledger:";
const ID_BYTES = 16;

/** The fragment of the only verification method of a ledger DID document. */
export const KEY_FRAGMENT = "key-1";

export const newLedgerDid = (random: (size: number) => Uint8Array = randomBytes): string =>
  `${LEDGER_DID_PREFIX}${base58btcEncode(random(ID_BYTES))}`;

/** Whether `did` is a syntactically valid did:ledger DID of this ledger. */
export function isLedgerDid(did: string): boolean {
  if (!did.startsWith(LEDGER_DID_PREFIX)) return false;
  const id = did.slice(LEDGER_DID_PREFIX.length);
  if (id.length === 0 || id.length > 32) return false;
  const decoded = base58btcDecode(id);
  return decoded?.length === ID_BYTES && base58btcEncode(decoded) === id;
}

/** Checks the syntax of a DID given to the ledger: 400 (InvalidArgument) when it is not a did:ledger DID. */
export function parseLedgerDid(did: string): string {
  if (!did.startsWith(LEDGER_DID_PREFIX)) throw badRequest("did must be a did:ledger DID");
  if (!isLedgerDid(did)) throw badRequest("did is not a valid did:ledger DID");
  return did;
}

export const keyIdOf = (did: string): string => `${did}#${KEY_FRAGMENT}`;
