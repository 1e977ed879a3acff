import type { JwtSigner } from "../sd-jwt-issue/jwt-signer.js";
import { compressStatusList, type StatusListBits } from "./status-list.js";

/** `typ` of a Status List Token in JWT format. */
export const STATUS_LIST_JWT_TYP = "statuslist+jwt";
/** Media type a Status List Token in JWT format is served with. */
export const STATUS_LIST_JWT_MEDIA_TYPE = "application/statuslist+jwt";

/** The `status` claim of a referenced token pointing into a Status List. */
export interface StatusListReference {
  status_list: { idx: number; uri: string };
}

export interface StatusListTokenInput {
  signer: JwtSigner;
  /** `sub`: the URI the list is served at, equal to the `uri` of the referenced tokens. */
  uri: string;
  /** `iss`: the issuer of the referenced tokens (optional in the draft; lets verifiers resolve its key). */
  issuer?: string;
  bits: StatusListBits;
  /** The uncompressed byte array. */
  bytes: Uint8Array;
  /** Unix seconds. */
  issuedAt: number;
  expiresAt?: number;
  /** Seconds a consumer may cache the token. */
  ttl?: number;
}

const base64urlJson = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * A Status List Token in JWT format (draft-ietf-oauth-status-list): header `typ: statuslist+jwt`
 * with the signer's `kid` or `x5c`; claims `sub`, `iat`, `exp`, `ttl`, optional `iss` and
 * `status_list: {bits, lst}`. Signed by `signer` (the same signers credentials are issued with).
 */
export async function signStatusListToken(input: StatusListTokenInput): Promise<string> {
  const { signer } = input;
  const header = { alg: signer.alg, typ: STATUS_LIST_JWT_TYP, ...signer.keyHeader };
  const payload = {
    sub: input.uri,
    ...(input.issuer === undefined ? {} : { iss: input.issuer }),
    iat: input.issuedAt,
    ...(input.expiresAt === undefined ? {} : { exp: input.expiresAt }),
    ...(input.ttl === undefined ? {} : { ttl: input.ttl }),
    status_list: { bits: input.bits, lst: compressStatusList(input.bytes) },
  };
  const signingInput = `${base64urlJson(header)}.${base64urlJson(payload)}`;
  const signature = await signer.sign(new TextEncoder().encode(signingInput));
  return `${signingInput}.${Buffer.from(signature).toString("base64url")}`;
}
