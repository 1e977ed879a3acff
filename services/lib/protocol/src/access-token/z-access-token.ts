import { z } from "zod";

/** RFC 9068 `typ` of JWT access tokens. */
export const ACCESS_TOKEN_TYP = "at+jwt";
export const ACCESS_TOKEN_ALG = "ES256";
/** access tokens live 3600 s (the `expires_in` of the token response). */
export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 3600;

/** The claims of an Attesto access token as they travel (snake_case, RFC 9068 + Attesto grant claims). */
export const zAccessTokenPayload = z
  .object({
    iss: z.string(),
    aud: z.union([z.string(), z.array(z.string()).length(1)]),
    sub: z.string().min(1),
    client_id: z.string().optional(),
    iat: z.number(),
    exp: z.number(),
    jti: z.string().min(1),
    tenant: z.string().min(1),
    offer_id: z.string().min(1),
    credential_configuration_ids: z.array(z.string()),
    dpop_required: z.boolean(),
    revocable: z.boolean().optional(),
    cnf: z
      .object({ jkt: z.string().min(1).optional() })
      .loose()
      .optional(),
  })
  .loose();
export type AccessTokenPayload = z.infer<typeof zAccessTokenPayload>;

/** What a redeemed grant entitles its holder to: the input of `AccessTokenSigner.sign`. */
export interface AccessTokenGrant {
  /** The credential issuer identifier (`<issuer URL>/<tenant>`). */
  audience: string;
  /** The offer id. */
  subject: string;
  tenant: string;
  offerId: string;
  credentialConfigurationIds: string[];
  /** The credential endpoint requires a DPoP-bound token (X.509 / HAIP path). */
  dpopRequired: boolean;
  /** RFC 7638 thumbprint of the DPoP proof key: the token is DPoP-bound (`cnf.jkt`). */
  jkt?: string;
  /** Authenticated client, when there is one (not in the anonymous pre-authorized flow). */
  clientId?: string;
  /**
   * The authorization server may revoke the token before it expires (a replayed authorization
   * code): resource servers ask its TokenStatusService before honouring it (`revocable: true`).
   */
  revocable?: boolean;
}

/** A verified access token's claims (camelCase). */
export interface AccessTokenClaims extends AccessTokenGrant {
  issuer: string;
  jti: string;
  issuedAt: Date;
  expiresAt: Date;
}

/** The wire payload -> the camelCase claims. */
export function parseAccessTokenPayload(payload: AccessTokenPayload): AccessTokenClaims {
  const claims: AccessTokenClaims = {
    issuer: payload.iss,
    audience: Array.isArray(payload.aud) ? payload.aud[0]! : payload.aud,
    subject: payload.sub,
    jti: payload.jti,
    issuedAt: new Date(payload.iat * 1000),
    expiresAt: new Date(payload.exp * 1000),
    tenant: payload.tenant,
    offerId: payload.offer_id,
    credentialConfigurationIds: payload.credential_configuration_ids,
    dpopRequired: payload.dpop_required,
  };
  if (payload.cnf?.jkt !== undefined) claims.jkt = payload.cnf.jkt;
  if (payload.client_id !== undefined) claims.clientId = payload.client_id;
  if (payload.revocable === true) claims.revocable = true;
  return claims;
}
