import { jwtVerify, SignJWT } from "jose";

/**
 * Service-to-service credentials: short-lived HS256 JWTs under a deployment secret. `iss` names
 * the calling service, `aud` the callee, so a credential minted for one callee is useless at
 * another. Signature checks in jose are constant-time.
 */
const TOKEN_TTL_SECONDS = 300;
const RENEW_BEFORE_SECONDS = 60;

const keyOf = (secret: string) => new TextEncoder().encode(secret);

export interface ServiceCredentialSigner {
  /** A bearer credential for calling `audience` (cached until shortly before it expires). */
  credentialFor(audience: string): Promise<string>;
}

export function createServiceCredentialSigner(options: { secret: string; caller: string }): ServiceCredentialSigner {
  const key = keyOf(options.secret);
  const cache = new Map<string, { token: string; renewAt: number }>();
  return {
    async credentialFor(audience) {
      const now = Math.floor(Date.now() / 1000);
      const cached = cache.get(audience);
      if (cached && cached.renewAt > now) return cached.token;
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: "HS256", typ: "attesto-service+jwt" })
        .setIssuer(options.caller)
        .setAudience(audience)
        .setIssuedAt(now)
        .setExpirationTime(now + TOKEN_TTL_SECONDS)
        .sign(key);
      cache.set(audience, { token, renewAt: now + TOKEN_TTL_SECONDS - RENEW_BEFORE_SECONDS });
      return token;
    },
  };
}

export interface ServiceCredentialVerifier {
  /** Returns the calling service's name, or throws when the credential is missing or invalid. */
  verify(token: string): Promise<string>;
}

export function createServiceCredentialVerifier(options: {
  secret: string;
  audience: string;
}): ServiceCredentialVerifier {
  const key = keyOf(options.secret);
  return {
    async verify(token) {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ["HS256"],
        audience: options.audience,
        typ: "attesto-service+jwt",
        requiredClaims: ["iss", "exp", "iat"],
        clockTolerance: 30,
      });
      return payload.iss as string;
    },
  };
}
