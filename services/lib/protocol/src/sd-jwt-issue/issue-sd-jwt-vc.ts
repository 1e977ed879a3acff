import { hash } from "node:crypto";
import type { PublicJwk } from "../proof/public-jwk.js";
import type { StatusListReference } from "../status-list/sign-status-list-token.js";
import { createDisclosureFrame } from "./create-disclosure-frame.js";
import type { JwtSigner } from "./jwt-signer.js";
import { base64urlOfText, packDisclosures } from "./pack-disclosures.js";
import { createSaltGenerator } from "./salt-pool.js";

/** Media type of an SD-JWT VC (`typ` header, `format` in OID4VCI). */
export const SD_JWT_VC_TYP = "dc+sd-jwt";

/** Bytes of randomness in every disclosure salt (128 bits, RFC 9901 §9.3). */
export const SALT_BYTES = 16;

/** JWT claims the SD-JWT VC itself sets; a credential's claims cannot use these names. */
export const RESERVED_CLAIM_NAMES = [
  "iss",
  "sub",
  "iat",
  "nbf",
  "exp",
  "cnf",
  "vct",
  "vct#integrity",
  "status",
  "_sd",
  "_sd_alg",
  "...",
] as const;

export class SdJwtVcIssueError extends Error {
  override name = "SdJwtVcIssueError";
}

export interface IssueSdJwtVcInput {
  signer: JwtSigner;
  /** `iss`: the credential issuer identifier. */
  issuer: string;
  vct: string;
  /** Credential subject claims; every one becomes selectively disclosable. */
  claims: Record<string, unknown>;
  /** The holder key the credential is bound to (`cnf.jwk`); public members only are embedded. */
  holderPublicJwk: PublicJwk;
  /** Unix seconds. */
  issuedAt: number;
  expiresAt?: number;
  notBefore?: number;
  /** `sub` (e.g. the holder's DID); optional in SD-JWT VC. */
  subject?: string;
  /** `status` (Token Status List): where verifiers look up the credential's status; never disclosable. */
  status?: StatusListReference;
}

export interface IssuedSdJwtVc {
  /** `<issuer-signed JWT>~<disclosure>~...~` */
  credential: string;
  issuerJwt: string;
  /** Lowercase hex SHA-256 of the issuer-signed JWT: the key of the credential's status record. */
  issuerJwtSha256: string;
}

/** A fresh salt: 128 random bits, base64url (from a pool of CSPRNG output, see salt-pool.ts). */
const salt = createSaltGenerator(SALT_BYTES);

/**
 * Issues an SD-JWT VC (`typ: dc+sd-jwt`): `iss`, `vct`, `iat`, `exp`, optional `nbf`/`sub`/`status`,
 * `cnf.jwk` bound to the holder's key, every claim disclosable through `_sd` (`_sd_alg: sha-256`,
 * 128-bit salts), signed by `signer` with its `kid` or `x5c` header. The disclosures are packed
 * here (pack-disclosures.ts) exactly as @sd-jwt/sd-jwt-vc's `issue` packed them, without its
 * promise per salt, digest and disclosure and its JavaScript base64.
 */
export function issueSdJwtVc(input: IssueSdJwtVcInput): Promise<IssuedSdJwtVc> {
  return issueSdJwtVcWithSalts(input, salt);
}

/** issueSdJwtVc with the salts taken from `nextSalt` (tests pin the output for given salts). */
export async function issueSdJwtVcWithSalts(input: IssueSdJwtVcInput, nextSalt: () => string): Promise<IssuedSdJwtVc> {
  const reserved = Object.keys(input.claims).filter((name) =>
    (RESERVED_CLAIM_NAMES as readonly string[]).includes(name),
  );
  if (reserved.length > 0) throw new SdJwtVcIssueError(`claim names reserved by SD-JWT VC: ${reserved.join(", ")}`);
  const { signer } = input;
  const { kty, crv, x } = input.holderPublicJwk;
  const cnfJwk = input.holderPublicJwk.kty === "EC" ? { kty, crv, x, y: input.holderPublicJwk.y } : { kty, crv, x };
  const payload = {
    iss: input.issuer,
    ...(input.subject === undefined ? {} : { sub: input.subject }),
    iat: input.issuedAt,
    ...(input.notBefore === undefined ? {} : { nbf: input.notBefore }),
    ...(input.expiresAt === undefined ? {} : { exp: input.expiresAt }),
    vct: input.vct,
    cnf: { jwk: cnfJwk },
    ...(input.status === undefined ? {} : { status: input.status }),
    ...input.claims,
  };
  const disclosures: string[] = [];
  const packed = packDisclosures(payload, createDisclosureFrame(input.claims), nextSalt, disclosures) as object;
  const header = { typ: SD_JWT_VC_TYP, ...signer.keyHeader, alg: signer.alg };
  const signingInput = `${base64urlOfText(JSON.stringify(header))}.${base64urlOfText(JSON.stringify({ ...packed, _sd_alg: "sha-256" }))}`;
  const signature = Buffer.from(await signer.sign(Buffer.from(signingInput, "ascii"))).toString("base64url");
  const issuerJwt = `${signingInput}.${signature}`;
  // `<issuer-signed JWT>~<disclosure>~...~`: no key binding JWT after the last `~`.
  const credential = [issuerJwt, ...disclosures, ""].join("~");
  return { credential, issuerJwt, issuerJwtSha256: hash("sha256", issuerJwt, "hex") };
}
