import type { JsonObject } from "../sd-jwt-verify/decode-compact-jwt.js";
import { verifyJwsSignature } from "../sd-jwt-verify/verify-jws-signature.js";
import {
  checkStatusListToken,
  type DecodedStatusListToken,
  type StatusListEntryReference,
  StatusListTokenError,
  statusNameOf,
  statusValueAt,
} from "./read-status-list-token.js";
import { StatusListFetchError, type StatusListTokenSource } from "./status-list-token-source.js";

/** A credential's status by its issuer's Status List, or why none can be stated (`reason` is safe to show). */
export type CredentialStatusReading =
  | { state: "valid" | "revoked" | "suspended" }
  | { state: "unknown"; reason: string };

/**
 * The key a Status List Token with this header must verify with: one bound to the credential's
 * `iss` exactly as the credential's own key is (the caller's rules: verifier or wallet), or why
 * no key is (the message is safe to show).
 */
export type StatusListKeyLookup = (
  header: JsonObject,
) => Promise<{ jwk: Record<string, unknown> } | { unbound: string }>;

export interface ReadCredentialStatusInput {
  source: StatusListTokenSource;
  /** The credential's `status.status_list` (statusListReferenceOf). */
  reference: StatusListEntryReference;
  /** The credential's `iss`, whose signature already verified. */
  iss: string;
  keyOf: StatusListKeyLookup;
  now: Date;
  clockSkewSeconds: number;
}

const unknown = (reason: string): CredentialStatusReading => ({ state: "unknown", reason });

/**
 * The public keys each decoded token's signature has verified with, by the token object a source
 * hands out (one per fetch: a refetched token is a new object, checked afresh). A signature check
 * is a pure function of the signed bytes, the header's `alg` and the key, all fixed for one token
 * object and one key, so a token shared by every credential of an issuer is verified once per key
 * instead of once per presentation; the key itself is still looked up (keyOf) every time, so a key
 * no longer bound to the issuer fails as before.
 */
const verifiedKeys = new WeakMap<DecodedStatusListToken, Map<string, string>>();
const MAX_KEYS_PER_TOKEN = 16;

const keyIdentity = (jwk: Record<string, unknown>) => JSON.stringify([jwk.kty, jwk.crv, jwk.x, jwk.y]);

async function signatureVerifies(token: DecodedStatusListToken, jwk: Record<string, unknown>): Promise<boolean> {
  const id = keyIdentity(jwk);
  const known = verifiedKeys.get(token);
  // The compact form is compared too: the memo holds only for the exact bytes that verified.
  if (known?.get(id) === token.compact) return true;
  if (!(await verifyJwsSignature(token.compact, jwk))) return false;
  if (!known) verifiedKeys.set(token, new Map([[id, token.compact]]));
  else if (known.size < MAX_KEYS_PER_TOKEN) known.set(id, token.compact);
  return true;
}

/**
 * The status of a credential from the Status List Token its `status.status_list` points to
 * (draft-ietf-oauth-status-list, "Validation Rules"), as a relying party or a wallet reads it: the
 * token is fetched from `source` (cached by its `ttl`), its `sub` must be the reference's `uri` and
 * it must not have expired; an `iss` it states must be the credential's; its signature must verify
 * with `keyOf`'s key. Then the value at `idx`: 0 valid, 1 revoked (INVALID), 2 suspended; anything
 * else, and any failure above, is unknown with the reason.
 */
export async function readCredentialStatus(input: ReadCredentialStatusInput): Promise<CredentialStatusReading> {
  const { reference, iss } = input;
  let token: DecodedStatusListToken;
  try {
    token = await input.source.get(reference.uri);
    checkStatusListToken(token, { uri: reference.uri, now: input.now, clockSkewSeconds: input.clockSkewSeconds });
  } catch (error) {
    if (error instanceof StatusListFetchError || error instanceof StatusListTokenError) return unknown(error.message);
    throw error;
  }
  if (token.payload.iss !== undefined && token.payload.iss !== iss) {
    return unknown("the Status List Token names another issuer than the credential's iss");
  }
  const key = await input.keyOf(token.header);
  if ("unbound" in key) {
    return unknown(`the Status List Token's key is not bound to the credential's issuer: ${key.unbound}`);
  }
  if (!(await signatureVerifies(token, key.jwk))) {
    return unknown("the Status List Token's signature does not verify with a key bound to the credential's iss");
  }
  let value: number;
  try {
    value = statusValueAt(token, reference.idx);
  } catch (error) {
    if (error instanceof StatusListTokenError) return unknown(error.message);
    throw error;
  }
  const name = statusNameOf(value);
  if (name === "valid") return { state: "valid" };
  if (name === "invalid") return { state: "revoked" };
  if (name === "suspended") return { state: "suspended" };
  return unknown(`the status list gives the credential a status value with no meaning here (${value})`);
}
