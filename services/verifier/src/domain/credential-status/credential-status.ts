import {
  checkStatusListToken,
  type DecodedStatusListToken,
  type StatusListEntryReference,
  StatusListFetchError,
  StatusListTokenError,
  statusNameOf,
  statusValueAt,
  verifyJwsSignature,
} from "@attesto/protocol";
import type { PresentationUnderVerification, VerificationContext } from "../checks/check.js";
import { issuerKeyOf } from "../issuer-key/issuer-key-of.js";

/** A credential's status by its issuer's Status List, or why none can be stated. */
export type CredentialStatus = { state: "valid" | "revoked" | "suspended" } | { state: "unknown"; reason: string };

const unknown = (reason: string): CredentialStatus => ({ state: "unknown", reason });

/**
 * The status of a credential whose issuer signature verified, from the Status List Token its
 * `status.status_list` points to (draft-ietf-oauth-status-list, "Validation Rules"): the token is
 * fetched (see StatusListTokens), its `sub` must be the reference's `uri` and it must not have
 * expired; it must be signed by a key bound to the credential's `iss` exactly as the credential's
 * own key is (same DID, the issuer's JWT VC Issuer Metadata, or an x5c chain naming `iss`), and an
 * `iss` it states must be the credential's. Then the value at `idx`: 0 valid, 1 revoked (INVALID),
 * 2 suspended; anything else, and any failure above, is unknown.
 */
export async function credentialStatusOf(
  presentation: PresentationUnderVerification & { issuer: { iss: string } },
  reference: StatusListEntryReference,
  context: VerificationContext,
): Promise<CredentialStatus> {
  const iss = presentation.issuer.iss;
  let token: DecodedStatusListToken;
  try {
    token = await context.ports.statusLists.get(reference.uri);
    checkStatusListToken(token, {
      uri: reference.uri,
      now: context.now,
      clockSkewSeconds: context.limits.clockSkewSeconds,
    });
  } catch (error) {
    if (error instanceof StatusListFetchError || error instanceof StatusListTokenError) return unknown(error.message);
    throw error;
  }
  if (token.payload.iss !== undefined && token.payload.iss !== iss) {
    return unknown("the Status List Token names another issuer than the credential's iss");
  }
  const key = await issuerKeyOf(token.header, iss, context);
  if ("outcome" in key) {
    return unknown(`the Status List Token's key is not bound to the credential's issuer: ${key.outcome.message}`);
  }
  if (!(await verifyJwsSignature(token.compact, key.jwk))) {
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
  return unknown(`the status list gives the credential a status this verifier has no meaning for (${value})`);
}
