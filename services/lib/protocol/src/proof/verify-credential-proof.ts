import { decodeProtectedHeader, type ProtectedHeaderParameters } from "jose";
import { CNonceError } from "../c-nonce/c-nonce-error.js";
import type { CNonces } from "../c-nonce/create-c-nonces.js";
import { verifyCompactJws } from "../keys/jws.js";
import { publicKeyCache } from "../keys/public-key-cache.js";
import { SIGNATURE_ALGORITHMS } from "../keys/signature-algorithms.js";
import { CredentialProofError } from "./credential-proof-error.js";
import {
  algorithmOfKey,
  hasPrivateKeyMaterial,
  type PublicJwk,
  publicJwkOf,
  type SignatureAlgorithm,
} from "./public-jwk.js";
import { type DidDocumentResolver, DidKeyResolutionError, resolveDidUrlKey } from "./resolve-did-url-key.js";

/** `typ` of an OID4VCI key proof JWT. */
export const OPENID4VCI_PROOF_TYP = "openid4vci-proof+jwt";
/** Oldest acceptable proof `iat`, in seconds before now. */
export const DEFAULT_PROOF_MAX_AGE_SECONDS = 300;
/** Clock skew tolerated for a proof `iat` in the future, in seconds. */
export const DEFAULT_PROOF_FUTURE_SKEW_SECONDS = 60;

const ALGORITHMS: readonly SignatureAlgorithm[] = SIGNATURE_ALGORITHMS;

export interface VerifyCredentialProofOptions {
  /** The credential issuer identifier: the only acceptable `aud`. */
  audience: string;
  /** Checks the `nonce` (integrity and expiry; single use is the caller's job). */
  cNonces: Pick<CNonces, "verify">;
  /** Resolves DIDs other than did:key named by a `kid` (did:ledger through the ledger). */
  resolveDidDocument?: DidDocumentResolver;
  /** Clock in milliseconds (tests). */
  now?: () => number;
  maxAgeSeconds?: number;
  futureSkewSeconds?: number;
}

export interface VerifiedCredentialProof {
  alg: SignatureAlgorithm;
  /** The holder's public key, to bind into `cnf.jwk`. */
  publicJwk: PublicJwk;
  /** The DID URL of the key when the proof named it by `kid`. */
  kid?: string;
  /** The DID of `kid`. */
  did?: string;
  nonce: string;
  /** When the nonce stops being valid: how long a replay record must be kept. */
  nonceExpiresAt: Date;
  /** `iss` (the wallet's client id) when present; tolerated, not required. */
  issuer?: string;
  issuedAt: number;
}

const fail = (message: string): never => {
  throw new CredentialProofError(message);
};

function parseHeader(jwt: string): ProtectedHeaderParameters {
  if (typeof jwt !== "string" || jwt.split(".").length !== 3) fail("proof is not a compact JWT");
  try {
    return decodeProtectedHeader(jwt);
  } catch {
    return fail("proof header is not valid JSON");
  }
}

function checkHeader(header: ProtectedHeaderParameters): SignatureAlgorithm {
  if (header.typ !== OPENID4VCI_PROOF_TYP) fail(`proof typ must be "${OPENID4VCI_PROOF_TYP}"`);
  const alg = header.alg as SignatureAlgorithm;
  if (!ALGORITHMS.includes(alg)) fail(`proof alg must be one of ${ALGORITHMS.join(", ")}`);
  return alg;
}

async function resolveProofKey(
  header: ProtectedHeaderParameters,
  resolveDidDocument: DidDocumentResolver | undefined,
): Promise<{ publicJwk: PublicJwk; kid?: string; did?: string }> {
  const named = ["jwk", "kid", "x5c"].filter((member) => header[member] !== undefined);
  if (named.length !== 1) fail("proof header must name its key with exactly one of jwk or kid");
  if (header.x5c !== undefined) fail("proof keys in x5c are not supported; use jwk or kid");
  if (header.jwk !== undefined) {
    if (hasPrivateKeyMaterial(header.jwk)) fail("proof jwk must not contain private key material");
    const publicJwk = publicJwkOf(header.jwk);
    if (!publicJwk) fail("proof jwk must be an Ed25519 (OKP) or P-256 (EC) public key");
    return { publicJwk: publicJwk! };
  }
  if (typeof header.kid !== "string" || !header.kid.startsWith("did:")) {
    return fail("proof kid must be a DID URL (did:key or did:ledger)");
  }
  try {
    const method = await resolveDidUrlKey(header.kid, resolveDidDocument);
    return { publicJwk: method.publicJwk, kid: method.id, did: method.did };
  } catch (error) {
    if (error instanceof DidKeyResolutionError) fail(`proof ${error.message}`);
    throw error;
  }
}

function verifySignature(jwt: string, alg: SignatureAlgorithm, publicJwk: PublicJwk): unknown {
  if (algorithmOfKey(publicJwk) !== alg) fail(`proof alg ${alg} does not match its key type`);
  try {
    const { payload } = verifyCompactJws(jwt, publicKeyCache.importKey(publicJwk), [alg]);
    return JSON.parse(new TextDecoder().decode(payload));
  } catch (error) {
    if (error instanceof SyntaxError) fail("proof payload is not valid JSON");
    return fail("proof signature is invalid");
  }
}

function checkClaims(
  payload: unknown,
  options: VerifyCredentialProofOptions,
): { nonce: string; nonceExpiresAt: Date; issuer?: string; issuedAt: number } {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload))
    fail("proof payload must be a JSON object");
  const claims = payload as Record<string, unknown>;
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (claims.aud === undefined) fail("proof has no aud");
  if (!audiences.includes(options.audience)) fail("proof aud must be the credential issuer identifier");
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  if (typeof claims.iat !== "number" || !Number.isFinite(claims.iat)) fail("proof iat must be a number (Unix seconds)");
  const iat = claims.iat as number;
  if (iat > now + (options.futureSkewSeconds ?? DEFAULT_PROOF_FUTURE_SKEW_SECONDS)) fail("proof iat is in the future");
  if (iat < now - (options.maxAgeSeconds ?? DEFAULT_PROOF_MAX_AGE_SECONDS)) fail("proof is too old (iat)");
  if (typeof claims.exp === "number" && claims.exp <= now) fail("proof has expired (exp)");
  if (claims.iss !== undefined && typeof claims.iss !== "string") fail("proof iss must be a string");
  if (typeof claims.nonce !== "string" || claims.nonce === "")
    fail("proof has no nonce (get one from the nonce endpoint)");
  const nonce = claims.nonce as string;
  try {
    const { expiresAt } = options.cNonces.verify(nonce);
    return { nonce, nonceExpiresAt: expiresAt, issuer: claims.iss as string | undefined, issuedAt: iat };
  } catch (error) {
    if (error instanceof CNonceError) fail(`proof ${error.message}`);
    throw error;
  }
}

/**
 * Verifies an OID4VCI key proof (`proof_type` jwt): header (typ, alg, exactly one of jwk or kid),
 * the key (a public jwk, or a did:key / did:ledger DID URL), the signature, then aud, iat window and
 * nonce. Throws CredentialProofError (`invalid_proof`) with a precise reason.
 */
export async function verifyCredentialProof(
  jwt: string,
  options: VerifyCredentialProofOptions,
): Promise<VerifiedCredentialProof> {
  const header = parseHeader(jwt);
  const alg = checkHeader(header);
  const key = await resolveProofKey(header, options.resolveDidDocument);
  const payload = verifySignature(jwt, alg, key.publicJwk);
  const claims = checkClaims(payload, options);
  return { alg, ...key, ...claims };
}
