import { createPublicKey, type KeyObject } from "node:crypto";
import { createBoundedCache } from "@attesto/protocol/cache";
import { decodeProtectedHeader, type JWTPayload, jwtVerify, SignJWT } from "jose";
import { parseServiceIdentityKey, parseServiceIdentityPublicKeys } from "./service-identity.js";

/**
 * Service-to-service credentials: short-lived EdDSA (Ed25519) JWTs signed with the caller's own
 * identity key (service-identity.ts). `iss` and the header's `kid` name the calling identity, whose
 * public key the callee checks them with; `aud` names the callee, so a credential minted for one
 * callee is useless at another. Only the holder of an identity's private key can speak as it.
 *
 * Both sides are cached: the caller reuses a credential until shortly before it expires, and the
 * callee remembers a verified credential (by its exact compact string, signature included) until
 * its `exp` plus the clock tolerance, so a busy caller's calls cost one map lookup instead of a
 * signature check each. Keys are parsed once, not per call.
 */
const TOKEN_TTL_SECONDS = 300;
const RENEW_BEFORE_SECONDS = 60;
const CLOCK_TOLERANCE_SECONDS = 30;
/** Distinct verified credentials kept per callee: one per caller per 4 minutes in steady state. */
export const VERIFIED_CREDENTIAL_CACHE_SIZE = 1024;

const TYP = "attesto-service+jwt";

export interface ServiceCredentialSigner {
  /** A bearer credential for calling `audience` (cached until shortly before it expires). */
  credentialFor(audience: string): Promise<string>;
}

export interface ServiceCredentialClock {
  /** Current time in milliseconds (tests move it). */
  now?: () => number;
}

export function createServiceCredentialSigner(
  options: {
    /** The caller's SERVICE_IDENTITY_KEY (Ed25519 private JWK). */ privateKey: string;
    caller: string;
  } & ServiceCredentialClock,
): ServiceCredentialSigner {
  const key = parseServiceIdentityKey(options.privateKey);
  const clock = options.now ?? Date.now;
  // One entry per callee: a handful of services, so no bound is needed beyond the audience set.
  const cache = new Map<string, { token: Promise<string>; renewAt: number }>();
  return {
    async credentialFor(audience) {
      const now = Math.floor(clock() / 1000);
      const cached = cache.get(audience);
      if (cached && cached.renewAt > now) return cached.token;
      // Concurrent first calls share one signing.
      const token = new SignJWT({})
        .setProtectedHeader({ alg: "EdDSA", typ: TYP, kid: options.caller })
        .setIssuer(options.caller)
        .setAudience(audience)
        .setIssuedAt(now)
        .setExpirationTime(now + TOKEN_TTL_SECONDS)
        .sign(key);
      const entry = { token, renewAt: now + TOKEN_TTL_SECONDS - RENEW_BEFORE_SECONDS };
      cache.set(audience, entry);
      token.catch(() => {
        if (cache.get(audience) === entry) cache.delete(audience);
      });
      return token;
    },
  };
}

export interface ServiceCredentialVerifier {
  /** Returns the calling service's name, or throws when the credential is missing or invalid. */
  verify(token: string): Promise<string>;
}

export interface CachingServiceCredentialVerifier extends ServiceCredentialVerifier {
  /** How many verified credentials are remembered (bounded by `cacheSize`). */
  readonly cachedCredentials: number;
}

interface VerifiedCredential {
  caller: string;
  /** `exp`, Unix seconds. */
  expiresAt: number;
}

export function createServiceCredentialVerifier(
  options: {
    /** SERVICE_IDENTITY_PUBLIC_KEYS: the JWK Set of every identity's public key, `kid` = identity. */
    publicKeys: string;
    audience: string;
    cacheSize?: number;
  } & ServiceCredentialClock,
): CachingServiceCredentialVerifier {
  // The public keys of each identity (usually one; two while one replaces the other), by `kid`.
  const keysOf = new Map<string, KeyObject[]>();
  for (const jwk of parseServiceIdentityPublicKeys(options.publicKeys).keys) {
    const kid = jwk.kid as string;
    keysOf.set(kid, [...(keysOf.get(kid) ?? []), createPublicKey({ key: jwk, format: "jwk" })]);
  }
  const verifyWith = async (token: string, nowMs: number): Promise<JWTPayload> => {
    const { kid } = decodeProtectedHeader(token);
    const keys = typeof kid === "string" ? keysOf.get(kid) : undefined;
    if (!keys) throw new Error("service credential of an unknown identity");
    let failure: unknown;
    for (const key of keys) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ["EdDSA"],
          audience: options.audience,
          // The key that verified the signature is the identity's: the credential may claim no other.
          issuer: kid,
          typ: TYP,
          requiredClaims: ["iss", "exp", "iat"],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          currentDate: new Date(nowMs),
        });
        return payload;
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  };
  const clock = options.now ?? Date.now;
  const verified = createBoundedCache<VerifiedCredential>({
    max: options.cacheSize ?? VERIFIED_CREDENTIAL_CACHE_SIZE,
  });
  return {
    get cachedCredentials() {
      return verified.size;
    },
    async verify(token) {
      const nowMs = clock();
      const nowSeconds = Math.floor(nowMs / 1000);
      const hit = verified.get(token);
      if (hit) {
        // Same acceptance rule as jose's: refused once exp is more than the tolerance in the past.
        if (hit.expiresAt > nowSeconds - CLOCK_TOLERANCE_SECONDS) return hit.caller;
        verified.delete(token);
      }
      const payload = await verifyWith(token, nowMs);
      const caller = payload.iss as string;
      verified.set(token, { caller, expiresAt: payload.exp as number });
      return caller;
    },
  };
}
