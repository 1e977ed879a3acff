import {
  type AccessTokenClaims,
  AccessTokenError,
  DPOP_SIGNING_ALGS,
  DpopProofError,
  verifyDpopProof,
} from "@attesto/protocol";
import { type AuthScheme, dpopErrorResponse, InvalidToken, TemporarilyUnavailable } from "@attesto/runtime/errors";
import type { FastifyReply, FastifyRequest } from "fastify";
import { credentialEndpointOf, issuerIdentifierOf } from "../domain/issuer-identifier.js";
import type { IssuerDependencies } from "../domain/ports.js";

/**
 * The access-control steps of POST /credential and POST /notification (RFC 6750, RFC 9449 as a
 * resource server): read the token from the Authorization header, verify it, and enforce its DPoP
 * binding (`endpoint`: the URL DPoP proofs are made for).
 */

export interface PresentedToken {
  scheme: AuthScheme;
  token: string;
}

/** 401 `invalid_token` with its challenge, in the scheme the client must use. */
const invalidToken = (scheme: AuthScheme, description: string, cause?: unknown) =>
  new InvalidToken(description, { scheme, algs: DPOP_SIGNING_ALGS, cause });

/**
 * Step 1: `Authorization: Bearer <token>` or `Authorization: DPoP <token>` (scheme case-insensitive).
 * Tokens in the query string or body are never accepted (RFC 9700 §2.5).
 */
export function readAccessToken(request: FastifyRequest): PresentedToken {
  const header = request.headers.authorization;
  const match = typeof header === "string" ? /^(\S+) +(\S+)$/.exec(header.trim()) : null;
  if (!match) {
    throw invalidToken("Bearer", "access token is required in the Authorization header (Bearer or DPoP scheme)");
  }
  const [, scheme, token] = match as unknown as [string, string, string];
  if (scheme.toLowerCase() === "bearer") return { scheme: "Bearer", token };
  if (scheme.toLowerCase() === "dpop") return { scheme: "DPoP", token };
  throw invalidToken("Bearer", "Authorization scheme must be Bearer or DPoP");
}

/** Step 2: signature, issuer, expiry (access-token verifier), then the audience: this tenant's issuer identifier. */
export async function verifyAccessToken(
  deps: IssuerDependencies,
  presented: PresentedToken,
): Promise<AccessTokenClaims> {
  let claims: AccessTokenClaims;
  try {
    claims = await deps.accessTokens.verify(presented.token);
  } catch (error) {
    if (error instanceof AccessTokenError && error.reason === "key_set_unavailable") {
      throw new TemporarilyUnavailable(error.message, { cause: error });
    }
    if (error instanceof AccessTokenError) throw invalidToken(presented.scheme, error.message, error);
    throw error;
  }
  if (claims.audience !== issuerIdentifierOf(deps.issuerUrl, claims.tenant)) {
    throw invalidToken(presented.scheme, "access token is meant for another audience");
  }
  return claims;
}

/**
 * Step 4: revocation. A `revocable` token (authorization-code flow: a replay of its code revokes
 * it) is looked up at the authorization server; revoked -> 401 `invalid_token`. The status call
 * fails closed: an unreachable authorization server is 503, never a credential. Other tokens
 * (pre-authorized flow) cannot be revoked early and skip the round trip.
 */
export async function checkAccessTokenNotRevoked(
  deps: IssuerDependencies,
  presented: PresentedToken,
  claims: AccessTokenClaims,
): Promise<void> {
  if (!claims.revocable) return;
  if (await deps.accessTokenStatus.isRevoked(claims.jti)) {
    throw invalidToken(presented.scheme, "access token has been revoked");
  }
}

/**
 * Step 3: DPoP. A token bound to a key (`cnf.jkt`) or issued for the X.509 / HAIP path
 * (`dpop_required`) is only accepted with the DPoP scheme and a valid proof for this request
 * (htm, htu, ath, jkt, server nonce, single-use jti). Successful DPoP requests get the next nonce.
 */
export async function verifyDpopBinding(
  deps: IssuerDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  presented: PresentedToken,
  claims: AccessTokenClaims,
  endpoint: string = credentialEndpointOf(deps.issuerUrl),
): Promise<void> {
  if (presented.scheme === "Bearer") {
    if (claims.jkt !== undefined) {
      throw invalidToken("DPoP", "access token is DPoP-bound: send it with the DPoP scheme and a DPoP proof");
    }
    if (claims.dpopRequired) throw invalidToken("DPoP", "this credential requires a DPoP-bound access token");
    return;
  }
  if (claims.jkt === undefined) {
    throw invalidToken("Bearer", "access token is not DPoP-bound: send it with the Bearer scheme");
  }
  try {
    await verifyDpopProof({
      header: request.headers.dpop,
      method: request.method,
      url: endpoint,
      accessToken: presented.token,
      expectedJkt: claims.jkt,
      nonces: deps.dpopNonces,
      replay: deps.replay,
      now: deps.now(),
    });
  } catch (error) {
    if (!(error instanceof DpopProofError)) throw error;
    // RFC 9449 §7.1, §9: a resource server challenges (401 + WWW-Authenticate: DPoP error=...).
    throw dpopErrorResponse(error, {
      server: "resource-server",
      nonce: () => deps.dpopNonces.issue(),
      algs: DPOP_SIGNING_ALGS,
      status: deps.dpopErrorStatus,
    });
  }
  reply.header("dpop-nonce", deps.dpopNonces.issue());
}
