import { pooledRandomBytes } from "../random/random-pool.js";

/** OID4VP 1.0 client identifier prefix of a verifier identified by a DID (§5.9.3). */
export const DID_CLIENT_ID_PREFIX = "decentralized_identifier:";

/** Fragment of the verification method when a non-did:key DID is given without one (did:ledger's `#key-1`). */
export const DEFAULT_DID_KEY_FRAGMENT = "key-1";

export interface VerifierClientId {
  /** The `client_id` of the request: in the `openid4vp://` URL, the JAR and the KB-JWT `aud`. */
  clientId: string;
  /**
   * The request object's `iss`: the verifier's identifier without a client_id prefix (the DID
   * itself for a DID). Wallets require a DID `kid` to start with a DID `iss` (OWF oid4vc-ts does).
   */
  issuer: string;
  /** The verifier's DID, when it is identified by one. */
  did?: string;
  /** The request object's `kid`: a DID URL, when the verifier is a DID. */
  kid?: string;
}

/**
 * The client_id rule. A DID (`did:...`, optionally a DID URL with a fragment naming the key)
 * becomes `decentralized_identifier:<did>` and the request object's `kid` is the DID URL (the
 * given fragment; for did:key its multibase key; otherwise `#key-1`). A value that already carries
 * `decentralized_identifier:` is treated the same. Anything else (an https URL, `x509_hash:...`, a
 * pre-registered id) is used exactly as given, and the request object has no `kid`. The
 * request object's `iss` is the DID for a DID verifier, the client_id otherwise.
 */
export function resolveVerifierClientId(verifierClientId: string): VerifierClientId {
  const value = verifierClientId.trim();
  const didUrl = value.startsWith(DID_CLIENT_ID_PREFIX) ? value.slice(DID_CLIENT_ID_PREFIX.length) : value;
  if (!didUrl.startsWith("did:")) return { clientId: value, issuer: value };
  const [did = didUrl, fragment] = didUrl.split("#");
  const keyFragment =
    fragment || (did.startsWith("did:key:") ? did.slice("did:key:".length) : DEFAULT_DID_KEY_FRAGMENT);
  return { clientId: `${DID_CLIENT_ID_PREFIX}${did}`, issuer: did, did, kid: `${did}#${keyFragment}` };
}

/** A verifier nonce or state: 32 random bytes, base64url (43 characters; every profile accepts it). */
export const createRequestNonce = (): string => pooledRandomBytes(32).toString("base64url");
