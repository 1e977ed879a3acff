import { createHash, type KeyObject } from "node:crypto";
import type { JWK } from "jose";
import { createLoadingCache } from "../cache/loading-cache.js";
import { importPrivateJwk, signCompactJws } from "../keys/jws.js";
import { SIGNATURE_ALGORITHMS } from "../keys/signature-algorithms.js";
import { COSE_ALGORITHMS } from "../mdoc/cose-algorithms.js";

/** `typ` of a signed authorization request (RFC 9101, OID4VP 1.0 §5). */
export const REQUEST_OBJECT_TYP = "oauth-authz-req+jwt";

/** Media type the request object is served with. */
export const REQUEST_OBJECT_CONTENT_TYPE = "application/oauth-authz-req+jwt";

/** `aud` of a request object sent to a wallet (the Self-Issued OP v2 constant of OID4VP). */
export const SELF_ISSUED_AUDIENCE = "https://self-issued.me/v2";

/** Algorithms wallets may use for presentations (`vp_formats_supported` of `dc+sd-jwt`). */
export const DC_SD_JWT_VP_FORMATS = {
  "dc+sd-jwt": { "sd-jwt_alg_values": SIGNATURE_ALGORITHMS, "kb-jwt_alg_values": SIGNATURE_ALGORITHMS },
} as const;

/**
 * COSE algorithms wallets may use for mdoc presentations (`vp_formats_supported` of `mso_mdoc`,
 * OID4VP 1.0 B.2.2): ES256 (-7), ES384 (-35), ES512 (-36), EdDSA (-8) for the MSO and the device signature.
 */
const MDOC_ALGORITHM_IDS = Object.values(COSE_ALGORITHMS);
export const MSO_MDOC_VP_FORMATS = {
  mso_mdoc: { issuerauth_alg_values: MDOC_ALGORITHM_IDS, deviceauth_alg_values: MDOC_ALGORITHM_IDS },
} as const;

export interface RequestObjectClaims {
  iss: string;
  aud: string;
  client_id: string;
  response_type: "vp_token";
  response_mode: string;
  /** Absent for the Digital Credentials API (the answer returns to the calling page). */
  response_uri?: string;
  nonce: string;
  state?: string;
  /** Digital Credentials API, signed requests: the web origins that may call the wallet (OID4VP 1.0 Appendix A). */
  expected_origins?: string[];
  dcql_query: unknown;
  client_metadata: Record<string, unknown>;
  /** Unix seconds. */
  iat: number;
  exp: number;
  wallet_nonce?: string;
}

/**
 * Imported relying-party signing keys (KeyObjects, keys/jws.ts), keyed by SHA-256 of the private
 * JWK's key members: a verifier signs every request object of a session (and often of many
 * sessions) with one key, and the import costs about as much as the signature. Bounded, expiring.
 */
const signingKeys = createLoadingCache<KeyObject>({ max: 256, ttlMs: 10 * 60_000 });

function signingKeyOf(privateJwk: JWK): Promise<KeyObject> {
  const { kty, crv, x, d } = privateJwk;
  const id = createHash("sha256")
    .update(JSON.stringify([kty, crv, x, d]))
    .digest("base64url");
  return signingKeys.get(id, async () => importPrivateJwk(privateJwk));
}

/**
 * Signs a request object with the verifier's Ed25519 private JWK (EdDSA), `typ` oauth-authz-req+jwt;
 * `kid` names a DID key, `jwk` carries the public key itself (RFC 7515 §4.1.3) when nothing else does.
 */
export async function signRequestObject(
  claims: RequestObjectClaims,
  privateJwk: JWK,
  options: { kid?: string; jwk?: JWK } = {},
): Promise<string> {
  const key = await signingKeyOf(privateJwk);
  const header = {
    typ: REQUEST_OBJECT_TYP,
    ...(options.kid ? { kid: options.kid } : {}),
    ...(options.jwk ? { jwk: options.jwk } : {}),
  };
  return signCompactJws("EdDSA", header, { ...claims }, key);
}
