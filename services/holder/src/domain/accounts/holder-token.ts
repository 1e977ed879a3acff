import { randomUUID } from "node:crypto";
import { errors, jwtVerify, SignJWT } from "jose";

/** Holder login tokens: HS256 JWTs (`iss` the holder's URL, `aud` holder, `sub` the user UUID). */
export interface HolderTokens {
  ttlSeconds: number;
  issue(userUuid: string): Promise<string>;
  /** The user UUID of a valid token; throws InvalidHolderTokenError otherwise. */
  verify(token: string): Promise<string>;
}

export class InvalidHolderTokenError extends Error {
  override name = "InvalidHolderTokenError";
}

const ALGORITHM = "HS256";
const AUDIENCE = "holder";

export function createHolderTokens(options: {
  secret: string;
  issuer: string;
  ttlSeconds: number;
  now: () => Date;
}): HolderTokens {
  const key = new TextEncoder().encode(options.secret);
  return {
    ttlSeconds: options.ttlSeconds,

    async issue(userUuid) {
      const now = Math.floor(options.now().getTime() / 1000);
      return new SignJWT({})
        .setProtectedHeader({ alg: ALGORITHM, typ: "JWT" })
        .setIssuer(options.issuer)
        .setAudience(AUDIENCE)
        .setSubject(userUuid)
        .setIssuedAt(now)
        .setExpirationTime(now + options.ttlSeconds)
        .setJti(randomUUID())
        .sign(key);
    },

    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          issuer: options.issuer,
          audience: AUDIENCE,
          requiredClaims: ["sub", "exp", "iat"],
          currentDate: options.now(),
        });
        return payload.sub as string;
      } catch (error) {
        if (error instanceof errors.JWTExpired) throw new InvalidHolderTokenError("Access token has expired");
        throw new InvalidHolderTokenError("Access token is invalid", { cause: error });
      }
    },
  };
}
