import {
  decodeEd25519Seed,
  ed25519JwkFromSeed,
  KeyFormatError,
  type PublicJwk,
  p256JwkFromPem,
  p256JwkFromRawD,
  publicJwkFromDidKey,
  publicJwkOf,
  type SignatureAlgorithm,
  samePublicKey,
} from "@attesto/protocol";
import type { JWK } from "jose";
import { invalidHolderKey } from "../errors.js";
import { LEDGER_DID_PREFIX } from "../model.js";
import type { HolderDependencies } from "../ports.js";

/** The key a request signs with: the holder's DID, the DID URL naming the key, and the key itself. */
export interface HolderKey {
  did: string;
  /** `kid` of proofs and what a verifier resolves: `<did>#key-1` (did:ledger), `<did>#<multibase>` (did:key). */
  kid: string;
  alg: SignatureAlgorithm;
  privateJwk: JWK;
  publicJwk: PublicJwk;
}

export const KEY_MISMATCH_MESSAGE = "private_key does not match holder_did";

function decodePrivateKey(value: string, kind: "Ed25519" | "P-256"): JWK {
  try {
    if (kind === "Ed25519") return ed25519JwkFromSeed(decodeEd25519Seed(value.trim().replace(/=+$/, "")));
    const text = value.trim();
    return text.startsWith("-----BEGIN") ? p256JwkFromPem(text) : p256JwkFromRawD(text.replace(/=+$/, ""));
  } catch (error) {
    if (!(error instanceof KeyFormatError)) throw error;
    throw invalidHolderKey(
      kind === "Ed25519"
        ? "private_key must be a base64url Ed25519 private key (32 bytes)"
        : "private_key must be a P-256 private key: base64url raw d (32 bytes) or PEM",
    );
  }
}

/**
 * The signing key of a request from `holder_did` and `private_key`:
 * - did:ledger: the DID must be in the caller's wallet (created or imported), the key an Ed25519
 *   seed matching the DID's recorded key; kid = the recorded verification method id;
 * - did:key: the DID is the key itself (nothing to hold): an Ed25519 seed or a P-256 private key
 *   (raw d or PEM) whose public key is the did:key; kid = `<did>#<multibase>`.
 * Anything else is 400 `invalid_holder_key`.
 */
export async function resolveHolderKey(
  deps: Pick<HolderDependencies, "dids">,
  userUuid: string,
  holderDid: string,
  privateKey: string,
): Promise<HolderKey> {
  const did = holderDid.trim();
  if (did.startsWith(LEDGER_DID_PREFIX)) {
    const held = await deps.dids.find(userUuid, did);
    if (!held) throw invalidHolderKey("holder_did is not one of your DIDs (create or import it first)");
    const privateJwk = decodePrivateKey(privateKey, "Ed25519");
    const publicJwk = publicJwkOf(privateJwk)!;
    if (!samePublicKey(publicJwk, held.publicJwk)) throw invalidHolderKey(KEY_MISMATCH_MESSAGE);
    return { did, kid: held.keyId, alg: "EdDSA", privateJwk, publicJwk };
  }
  if (did.startsWith("did:key:")) {
    let didKeyJwk: PublicJwk;
    try {
      didKeyJwk = publicJwkFromDidKey(did);
    } catch (error) {
      if (!(error instanceof KeyFormatError)) throw error;
      throw invalidHolderKey(`holder_did is not a valid did:key: ${error.message}`);
    }
    const privateJwk = decodePrivateKey(privateKey, didKeyJwk.kty === "OKP" ? "Ed25519" : "P-256");
    const publicJwk = publicJwkOf(privateJwk)!;
    if (!samePublicKey(publicJwk, didKeyJwk)) throw invalidHolderKey(KEY_MISMATCH_MESSAGE);
    const multibase = did.slice("did:key:".length).split("#")[0]!;
    return {
      did: `did:key:${multibase}`,
      kid: `did:key:${multibase}#${multibase}`,
      alg: didKeyJwk.kty === "OKP" ? "EdDSA" : "ES256",
      privateJwk,
      publicJwk,
    };
  }
  throw invalidHolderKey("holder_did must be a did:ledger or did:key DID");
}
