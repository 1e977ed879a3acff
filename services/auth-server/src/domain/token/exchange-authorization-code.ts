import { PkceError, type VerifiedDpopProof, verifyPkceS256 } from "@attesto/protocol";
import { InvalidDpopProof, InvalidGrant } from "@attesto/runtime/errors";
import { decodeJwt } from "jose";
import type { AuthorizationCode } from "../authorization/authorization-code.js";
import {
  authenticateClient,
  type ClientAttestationHeaders,
  type ClientAuthenticationDeps,
  clientAttestationRequired,
  sendsClientAttestation,
} from "../client-authentication.js";
import type { AuthorizationCodeRepository, GrantRedeemer } from "../ports.js";
import { sha256Hex } from "../secrets.js";
import type { AuthorizationCodeGrantRequest } from "./grant-request.js";

export interface AuthorizationCodeGrantDeps {
  codes: AuthorizationCodeRepository;
  clientAuthentication: ClientAuthenticationDeps;
  /** CLIENT_ATTESTATION_REQUIRED_AT_TOKEN: a code from an attested PAR needs an attested token request. */
  clientAttestationRequiredAtToken: boolean;
  /** The tenant lifecycle: a deactivated tenant's code is `invalid_grant`. */
  issuers: Pick<GrantRedeemer, "checkIssuerActive">;
  now: () => Date;
}

/** A code that is unknown, expired or already used: never redeemable (a reuse revokes what it issued). */
async function redeemableCode(codeHash: string, deps: AuthorizationCodeGrantDeps): Promise<AuthorizationCode> {
  const code = await deps.codes.find(codeHash);
  if (!code) throw new InvalidGrant("authorization code is invalid");
  if (code.redeemedAt !== undefined) {
    // RFC 6749 §4.1.2: a code used twice is refused and what it issued is revoked.
    await deps.codes.revoke(codeHash, deps.now());
    throw new InvalidGrant("authorization code has already been used");
  }
  if (code.expiresAt.getTime() <= deps.now().getTime()) throw new InvalidGrant("authorization code has expired");
  return code;
}

/** The token request matches the authorization request: client, redirect_uri, PKCE verifier, DPoP key. */
function checkBinding(
  request: AuthorizationCodeGrantRequest,
  code: AuthorizationCode,
  proof?: VerifiedDpopProof,
): void {
  if (request.clientId !== code.clientId) {
    throw new InvalidGrant("client_id does not match the authorization request");
  }
  if (request.redirectUri !== code.redirectUri) {
    throw new InvalidGrant("redirect_uri does not match the authorization request");
  }
  try {
    verifyPkceS256({ codeVerifier: request.codeVerifier, codeChallenge: code.codeChallenge });
  } catch (error) {
    if (error instanceof PkceError) throw new InvalidGrant(error.message, { cause: error });
    throw error;
  }
  if (code.dpopJkt !== undefined) {
    if (!proof) throw new InvalidDpopProof("DPoP proof is required: the authorization request was bound to a DPoP key");
    if (proof.jkt !== code.dpopJkt) {
      throw new InvalidDpopProof("DPoP proof key does not match the key the authorization request was bound to");
    }
  }
}

/**
 * The authorization-code grant after the DPoP step, as ordered steps: client attestation when sent
 * (401 `invalid_client`), the code (unknown, expired, reused -> `invalid_grant`; a reuse revokes
 * the token the code issued), attestation again when the PAR was attested (and so configured),
 * client_id, redirect_uri, PKCE S256 and the DPoP key binding, the issuing tenant still active
 * (`invalid_grant` once it was deactivated), then the atomic redemption. A
 * failed check leaves the code unused (the PKCE verifier cannot be guessed).
 *
 * `issue` signs the access token; its `jti` is recorded with the code so a replay can revoke it.
 */
export async function exchangeAuthorizationCode(
  request: AuthorizationCodeGrantRequest,
  context: { proof: VerifiedDpopProof | undefined; clientAttestation: ClientAttestationHeaders },
  deps: AuthorizationCodeGrantDeps,
  issue: (code: AuthorizationCode) => Promise<string>,
): Promise<string> {
  const attested = sendsClientAttestation(context.clientAttestation);
  if (attested) await authenticateClient(context.clientAttestation, request.clientId, deps.clientAuthentication);
  const codeHash = sha256Hex(request.code);
  const code = await redeemableCode(codeHash, deps);
  if (code.clientAttested && !attested && deps.clientAttestationRequiredAtToken) {
    throw clientAttestationRequired("the authorization request was authenticated with a client attestation");
  }
  checkBinding(request, code, context.proof);
  await deps.issuers.checkIssuerActive(code.grant.tenant);

  const redeemed = await deps.codes.redeem(codeHash, deps.now());
  if (!redeemed) {
    // Another request redeemed it between the checks and now: that is a reuse too.
    await deps.codes.revoke(codeHash, deps.now());
    throw new InvalidGrant("authorization code has already been used");
  }
  const accessToken = await issue(redeemed);
  const { jti, exp } = decodeJwt(accessToken);
  const { revoked } = await deps.codes.recordAccessToken(codeHash, {
    jti: String(jti),
    expiresAt: new Date((exp ?? 0) * 1000),
  });
  if (revoked) throw new InvalidGrant("authorization code has already been used");
  return accessToken;
}
