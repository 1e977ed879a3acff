import { webcrypto } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import { LRUCache } from "lru-cache";

/**
 * Service-to-service credentials: short-lived HS256 JWTs under a deployment secret. `iss` names
 * the calling service, `aud` the callee, so a credential minted for one callee is useless at
 * another. Signature checks in jose are constant-time.
 *
 * Both sides are cached: the caller reuses a credential until shortly before it expires, and the
 * callee remembers a verified credential (by its exact compact string, signature included) until
 * its `exp` plus the clock tolerance, so a busy caller's calls cost one map lookup instead of an
 * HMAC each. The secret is imported into WebCrypto once, not per call.
 */
const TOKEN_TTL_SECONDS = 300;
const RENEW_BEFORE_SECONDS = 60;
const CLOCK_TOLERANCE_SECONDS = 30;
/** Distinct verified credentials kept per callee: one per caller per 4 minutes in steady state. */
export const VERIFIED_CREDENTIAL_CACHE_SIZE = 1024;

const importSecret = (secret: string, usage: "sign" | "verify") =>
  webcrypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    usage,
  ]);

export interface ServiceCredentialSigner {
  /** A bearer credential for calling `audience` (cached until shortly before it expires). */
  credentialFor(audience: string): Promise<string>;
}

export interface ServiceCredentialClock {
  /** Current time in milliseconds (tests move it). */
  now?: () => number;
}

export function createServiceCredentialSigner(
  options: { secret: string; caller: string } & ServiceCredentialClock,
): ServiceCredentialSigner {
  const key = importSecret(options.secret, "sign");
  const clock = options.now ?? Date.now;
  // One entry per callee: a handful of services, so no bound is needed beyond the audience set.
  const cache = new Map<string, { token: Promise<string>; renewAt: number }>();
  return {
    async credentialFor(audience) {
      const now = Math.floor(clock() / 1000);
      const cached = cache.get(audience);
      if (cached && cached.renewAt > now) return cached.token;
      // Concurrent first calls share one signing.
      const token = key.then((secretKey) =>
        new SignJWT({})
          .setProtectedHeader({ alg: "HS256", typ: "attesto-service+jwt" })
          .setIssuer(options.caller)
          .setAudience(audience)
          .setIssuedAt(now)
          .setExpirationTime(now + TOKEN_TTL_SECONDS)
          .sign(secretKey),
      );
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
  options: { secret: string; audience: string; cacheSize?: number } & ServiceCredentialClock,
): CachingServiceCredentialVerifier {
  const key = importSecret(options.secret, "verify");
  const clock = options.now ?? Date.now;
  const verified = new LRUCache<string, VerifiedCredential>({
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
      const { payload } = await jwtVerify(token, await key, {
        algorithms: ["HS256"],
        audience: options.audience,
        typ: "attesto-service+jwt",
        requiredClaims: ["iss", "exp", "iat"],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: new Date(nowMs),
      });
      const caller = payload.iss as string;
      verified.set(token, { caller, expiresAt: payload.exp as number });
      return caller;
    },
  };
}
