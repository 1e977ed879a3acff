import {
  holderJwkOf,
  parseSdJwtPresentation,
  publicJwkOf,
  SD_JWT_VC_TYP,
  SdJwtVerificationError,
  samePublicKey,
  verifyJwsSignature,
} from "@attesto/protocol";
import type { HolderKey } from "../dids/resolve-holder-key.js";
import { invalidCredential } from "../errors.js";
import { sameIdentifier } from "../http/well-known.js";
import type { HolderDependencies } from "../ports.js";
import { subjectClaimsOf } from "../sd-jwt/credential-claims.js";
import { resolveIssuerKey } from "../sd-jwt/resolve-issuer-key.js";

export interface VerifiedIssuedCredential {
  vct: string;
  issuerDid: string;
  claims: Record<string, unknown>;
  issuedAt: Date | null;
  expiresAt: Date | null;
}

const timeClaim = (payload: Record<string, unknown>, name: string): number | undefined => {
  const value = payload[name];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value))
    throw invalidCredential(`the credential's ${name} is not a number`);
  return value;
};

/**
 * Checks an issued SD-JWT VC before it is stored, as a verifier later will:
 * 1. structure (RFC 9901: disclosures, digests, allowed alg) and no key binding JWT;
 * 2. `typ` dc+sd-jwt (legacy `vc+sd-jwt` is refused, as Attesto's verifier refuses it);
 * 3. `iss` is the credential issuer the offer came from, or a DID;
 * 4. the issuer's signature, with a key bound to `iss` (a key of the DID `iss`; for a URL `iss`, an
 *    x5c leaf naming it or its JWT VC Issuer Metadata key);
 * 5. `vct` is the configuration's; 6. `cnf.jwk` is the holder's key; 7. time claims.
 * Every failure is 400 `invalid_credential`.
 */
export async function verifyIssuedCredential(
  deps: Pick<HolderDependencies, "ledger" | "http" | "now" | "clockSkewSeconds">,
  credential: string,
  expected: { credentialIssuer: string; vct: string | undefined; holder: HolderKey },
): Promise<VerifiedIssuedCredential> {
  let parsed: ReturnType<typeof parseSdJwtPresentation>;
  try {
    parsed = parseSdJwtPresentation(credential);
  } catch (error) {
    if (error instanceof SdJwtVerificationError)
      throw invalidCredential(`the credential is malformed: ${error.message}`);
    throw error;
  }
  if (parsed.keyBindingJwt) throw invalidCredential("an issued credential must not carry a key binding JWT");
  const { header, payload } = parsed.issuerJwt;
  if (header.typ !== SD_JWT_VC_TYP) throw invalidCredential(`the credential's typ must be '${SD_JWT_VC_TYP}'`);

  // A URL iss must be the offer's issuer before anything is fetched from it; a DID iss must be the
  // DID whose key signed (resolveIssuerKey binds the key to iss).
  const iss = payload.iss;
  if (typeof iss !== "string" || (!iss.startsWith("did:") && !sameIdentifier(iss, expected.credentialIssuer))) {
    throw invalidCredential("the credential's iss is not the credential issuer of the offer");
  }
  const issuerKey = await resolveIssuerKey(deps, header, payload);
  if (!(await verifyJwsSignature(parsed.issuerJwt.compact, issuerKey.publicJwk))) {
    throw invalidCredential("the issuer's signature does not verify");
  }
  const vct = payload.vct;
  if (typeof vct !== "string" || vct.length === 0) throw invalidCredential("the credential has no vct");
  if (expected.vct !== undefined && vct !== expected.vct) {
    throw invalidCredential("the credential's vct is not the one of the credential configuration");
  }
  const cnf = publicJwkOf(holderJwkOf(parsed.claims));
  if (!cnf) throw invalidCredential("the credential is not bound to a holder key (cnf.jwk)");
  if (!samePublicKey(cnf, expected.holder.publicJwk)) {
    throw invalidCredential("the credential is bound to another key than the holder's (cnf.jwk)");
  }

  const now = deps.now().getTime() / 1000;
  const skew = deps.clockSkewSeconds;
  const iat = timeClaim(payload, "iat");
  const exp = timeClaim(payload, "exp");
  const nbf = timeClaim(payload, "nbf");
  if (exp !== undefined && exp <= now - skew) throw invalidCredential("the credential has expired");
  if (iat !== undefined && iat > now + skew) throw invalidCredential("the credential is issued in the future (iat)");
  if (nbf !== undefined && nbf > now + skew) throw invalidCredential("the credential is not valid yet (nbf)");
  return {
    vct,
    issuerDid: issuerKey.issuerDid,
    claims: subjectClaimsOf(parsed.claims),
    issuedAt: iat === undefined ? null : new Date(iat * 1000),
    expiresAt: exp === undefined ? null : new Date(exp * 1000),
  };
}
