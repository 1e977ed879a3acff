import { randomUUID } from "node:crypto";
import { errors, jwtVerify, SignJWT } from "jose";

/** The organization an access token was issued to. */
export interface LoginPrincipal {
  accountUuid: string;
  tenant: string;
}

export interface LoginTokenOptions {
  /** HS256 secret (LOGIN_TOKEN_SECRET). */
  secret: string;
  /** `iss` of every token: the trust registry's public URL. */
  issuer: string;
  ttlSeconds: number;
  clock: () => Date;
}

/** Why a presented token was refused; the message is safe to show. */
export class InvalidLoginTokenError extends Error {
  override name = "InvalidLoginTokenError";
}

const ALGORITHM = "HS256";

/** Organization login tokens: HS256 JWTs with iss, sub (account UUID), tenant, iat, exp and jti. */
export function createLoginTokens(options: LoginTokenOptions) {
  const key = new TextEncoder().encode(options.secret);

  return {
    ttlSeconds: options.ttlSeconds,

    async issue(principal: LoginPrincipal): Promise<string> {
      const now = Math.floor(options.clock().getTime() / 1000);
      return new SignJWT({ tenant: principal.tenant })
        .setProtectedHeader({ alg: ALGORITHM, typ: "JWT" })
        .setIssuer(options.issuer)
        .setSubject(principal.accountUuid)
        .setIssuedAt(now)
        .setExpirationTime(now + options.ttlSeconds)
        .setJti(randomUUID())
        .sign(key);
    },

    async verify(token: string): Promise<LoginPrincipal> {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          issuer: options.issuer,
          requiredClaims: ["sub", "exp", "iat"],
          currentDate: options.clock(),
        });
        if (typeof payload.tenant !== "string" || typeof payload.sub !== "string") {
          throw new InvalidLoginTokenError("Access token is invalid");
        }
        return { accountUuid: payload.sub, tenant: payload.tenant };
      } catch (error) {
        if (error instanceof InvalidLoginTokenError) throw error;
        if (error instanceof errors.JWTExpired) throw new InvalidLoginTokenError("Access token has expired");
        throw new InvalidLoginTokenError("Access token is invalid", { cause: error });
      }
    },
  };
}

export type LoginTokens = ReturnType<typeof createLoginTokens>;
