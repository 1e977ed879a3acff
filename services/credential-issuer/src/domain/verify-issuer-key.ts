import {
  algorithmOfKey,
  decodeEd25519Seed,
  ed25519JwkFromSeed,
  KeyFormatError,
  type PublicJwk,
  p256JwkFromPem,
  publicJwkFromDidKey,
  publicJwkOf,
  type SignatureAlgorithm,
  samePublicKey,
  verificationMethodsOf,
} from "@attesto/protocol";
import type { CacheScope } from "@attesto/protocol/cache";
import { badRequest } from "@attesto/runtime/errors";
import type { Ledger } from "./ports.js";

/** DIDs an issuer may sign with: did:ledger (resolved on the ledger) or did:key. */
const ISSUER_DID = /^did:(ledger|key):[A-Za-z0-9._%-]+$/;

export interface IssuerKey {
  /** The private JWK to seal with the offer. */
  privateJwk: Record<string, string>;
  alg: SignatureAlgorithm;
  publicJwk: PublicJwk;
  /** DID URL of the key in the issuer's DID document: the credential's `kid`. */
  kid: string;
}

/** An Ed25519 seed (base64url) or a P-256 private key in PKCS#8 PEM; never echoes the key. */
function parseIssuerPrivateKey(value: string): Record<string, string> {
  const trimmed = value.trim();
  try {
    if (trimmed.startsWith("-----BEGIN")) return p256JwkFromPem(trimmed) as unknown as Record<string, string>;
    return ed25519JwkFromSeed(decodeEd25519Seed(trimmed)) as unknown as Record<string, string>;
  } catch (error) {
    if (!(error instanceof KeyFormatError)) throw error;
    throw badRequest("issuer_private_key must be a base64url Ed25519 private key (32 bytes) or a P-256 PKCS#8 PEM key");
  }
}

/** did:key: the key is the DID; its verification method id is `<did>#<multibase>`. */
function didKeyMethod(did: string): { id: string; publicJwk: PublicJwk } {
  try {
    return { id: `${did}#${did.slice("did:key:".length)}`, publicJwk: publicJwkFromDidKey(did) };
  } catch (error) {
    if (!(error instanceof KeyFormatError)) throw error;
    throw badRequest("issuer_did is not a valid did:key");
  }
}

/** did:ledger: the assertion keys of its DID document on the ledger (503 when the ledger is down). */
async function ledgerMethods(ledger: Ledger, did: string, scope: CacheScope | undefined) {
  const resolved = await ledger.resolveDid(did, scope);
  if (!resolved) throw badRequest("issuer_did does not resolve on the ledger");
  if (resolved.deactivated) throw badRequest("issuer_did is deactivated");
  return verificationMethodsOf(resolved.document, did, "assertionMethod");
}

/**
 * The DID path's key check (this service's README): `issuer_did` must resolve to the public key of
 * `issuer_private_key`. Returns the key to seal and the DID URL that becomes the credential's `kid`.
 * `scope`: the request's cache scope, so a did:ledger resolution trusts the barrier its first cached
 * read took (a DID deactivated before the request began is refused) instead of a round trip of its own.
 */
export async function verifyIssuerKey(
  ledger: Ledger,
  issuerDid: string,
  issuerPrivateKey: string,
  scope?: CacheScope,
): Promise<IssuerKey> {
  if (!ISSUER_DID.test(issuerDid)) throw badRequest("issuer_did must be a did:ledger or did:key DID");
  const privateJwk = parseIssuerPrivateKey(issuerPrivateKey);
  const publicJwk = publicJwkOf(privateJwk)!;
  const methods = issuerDid.startsWith("did:key:")
    ? [didKeyMethod(issuerDid)]
    : await ledgerMethods(ledger, issuerDid, scope);
  const method = methods.find((candidate) => samePublicKey(candidate.publicJwk, publicJwk));
  if (!method) throw badRequest("issuer_private_key does not match the public key of issuer_did");
  return { privateJwk, publicJwk, alg: algorithmOfKey(publicJwk), kid: method.id };
}
