import { createDpopProof, generateEd25519Jwk, generateP256Jwk } from "@attesto/protocol";
import type { JWK } from "jose";
import { invalidGrant, invalidOffer, issuanceFailed } from "../errors.js";
import { fetchFromThirdParty } from "../http/fetch-from-third-party.js";
import { describeFailure, jsonObjectOf, oauthErrorOf, stringOf } from "../http/read-json.js";
import { appendedWellKnownUrlOf, sameIdentifier, wellKnownUrlOf } from "../http/well-known.js";
import type { HolderDependencies } from "../ports.js";
import type { PreAuthorizedGrant, ResolvedCredentialOffer } from "./resolve-credential-offer.js";
import {
  type AuthorizationServerMetadata,
  firstIssue,
  PRE_AUTHORIZED_CODE_GRANT,
  zAuthorizationServerMetadata,
} from "./z-credential-offer.js";

/** The access token of a pre-authorized code, as the credential endpoint must receive it. */
export interface AccessToken {
  token: string;
  /** `DPoP` when the token is bound to the wallet's DPoP key, else `Bearer`. */
  scheme: "DPoP" | "Bearer";
  /** A c_nonce in the token response (pre-1.0 issuers). */
  cNonce: string | undefined;
}

/** The authorization server of the grant: the offer's, else the issuer metadata's first, else the issuer itself. */
export function authorizationServerOf(
  offer: ResolvedCredentialOffer,
  grant: { authorizationServer?: string | undefined },
): string {
  return grant.authorizationServer ?? offer.metadata.authorization_servers?.[0] ?? offer.credentialIssuer;
}

/**
 * RFC 8414 metadata: `https://host/.well-known/oauth-authorization-server/<path>`, then the
 * appended forms (oauth-authorization-server, openid-configuration). `issuer` must be the AS id.
 */
export async function fetchAuthorizationServerMetadata(
  deps: Pick<HolderDependencies, "http">,
  authorizationServer: string,
): Promise<AuthorizationServerMetadata> {
  const urls = [
    ...new Set([
      wellKnownUrlOf(authorizationServer, "oauth-authorization-server"),
      appendedWellKnownUrlOf(authorizationServer, "oauth-authorization-server"),
      appendedWellKnownUrlOf(authorizationServer, "openid-configuration"),
    ]),
  ];
  for (const url of urls) {
    const response = await fetchFromThirdParty(deps, url, "authorization server metadata", invalidOffer, {
      method: "GET",
      headers: { accept: "application/json" },
    });
    if (response.status === 404) continue;
    if (response.status !== 200) throw invalidOffer(`authorization server metadata: ${describeFailure(response)}`);
    const parsed = zAuthorizationServerMetadata.safeParse(jsonObjectOf(response));
    if (!parsed.success) {
      throw invalidOffer(`authorization server metadata is malformed: ${firstIssue(parsed.error)}`);
    }
    if (!sameIdentifier(parsed.data.issuer, authorizationServer)) {
      throw invalidOffer("authorization server metadata names another issuer than the authorization server");
    }
    return parsed.data;
  }
  throw invalidOffer(`authorization server metadata not found for ${authorizationServer}`);
}

/** The DPoP key's algorithm the AS accepts: ES256 unless it only lists EdDSA. */
export function dpopAlgorithmFor(metadata: AuthorizationServerMetadata): "ES256" | "EdDSA" {
  const supported = metadata.dpop_signing_alg_values_supported;
  if (!supported || supported.includes("ES256")) return "ES256";
  return supported.includes("EdDSA") ? "EdDSA" : "ES256";
}

/** A fresh per-flow DPoP key of the algorithm the authorization server takes. */
export const newDpopKey = (metadata: AuthorizationServerMetadata): JWK =>
  dpopAlgorithmFor(metadata) === "ES256" ? generateP256Jwk() : generateEd25519Jwk();

function refusal(status: number, failure: string, error: string | undefined, grant: string) {
  if (error === "invalid_grant") {
    return invalidGrant(`the ${grant} was refused (expired, already used or unknown): ${failure}`);
  }
  if (status >= 500) return issuanceFailed(`the authorization server failed (${failure})`);
  return issuanceFailed(`the token endpoint refused the request (${failure})`);
}

/**
 * Whether the authorization server takes DPoP proofs: it advertises `dpop_signing_alg_values_supported`
 * (RFC 9449 §5.1). A server that does not may refuse any request carrying a `DPoP` header.
 */
export const supportsDpop = (metadata: AuthorizationServerMetadata): boolean =>
  (metadata.dpop_signing_alg_values_supported?.length ?? 0) > 0;

/**
 * POST token_endpoint with the pre-authorized code grant (and `tx_code`). A DPoP proof is sent
 * when the authorization server advertises DPoP (the token is then DPoP-bound when it says so);
 * without DPoP the token is a Bearer token.
 */
export function requestAccessToken(
  deps: Pick<HolderDependencies, "http" | "now">,
  input: {
    metadata: AuthorizationServerMetadata;
    grant: PreAuthorizedGrant;
    txCode: string | undefined;
    dpopKey: JWK;
  },
): Promise<AccessToken> {
  const { metadata, grant } = input;
  if (metadata.grant_types_supported && !metadata.grant_types_supported.includes(PRE_AUTHORIZED_CODE_GRANT)) {
    throw invalidOffer("the authorization server does not support the pre-authorized code grant");
  }
  const form = new URLSearchParams({ grant_type: PRE_AUTHORIZED_CODE_GRANT, "pre-authorized_code": grant.code });
  if (input.txCode !== undefined) form.set("tx_code", input.txCode);
  return postTokenRequest(deps, {
    metadata,
    form,
    dpopKey: input.dpopKey,
    useDpop: supportsDpop(metadata),
    grant: "pre-authorized code",
  });
}

/**
 * One token request (RFC 6749 §3.2), with a DPoP proof when `useDpop`: the `use_dpop_nonce`
 * answer (400 with a DPoP-Nonce header, RFC 9449 §8) is retried once with that nonce, before the
 * grant was redeemed. `clientAuthentication` gives the client's headers for each attempt (a
 * client attestation PoP is single use). `grant` names the grant in a refusal.
 */
export async function postTokenRequest(
  deps: Pick<HolderDependencies, "http" | "now">,
  input: {
    metadata: AuthorizationServerMetadata;
    form: URLSearchParams;
    dpopKey: JWK;
    useDpop: boolean;
    grant: string;
    nonce?: string;
    clientAuthentication?: () => Promise<Record<string, string>>;
  },
): Promise<AccessToken> {
  const { metadata, useDpop } = input;
  let nonce = input.nonce;
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
      ...(await input.clientAuthentication?.()),
    };
    if (useDpop) {
      headers.dpop = await createDpopProof({
        privateJwk: input.dpopKey,
        method: "POST",
        url: metadata.token_endpoint,
        now: deps.now(),
        ...(nonce ? { nonce } : {}),
      });
    }
    const response = await fetchFromThirdParty(deps, metadata.token_endpoint, "token endpoint", issuanceFailed, {
      method: "POST",
      headers,
      body: input.form.toString(),
    });
    const { error } = oauthErrorOf(response);
    const serverNonce = response.headers.get("dpop-nonce");
    if (useDpop && response.status === 400 && error === "use_dpop_nonce" && serverNonce && attempt === 0) {
      nonce = serverNonce;
      continue;
    }
    if (response.status !== 200) throw refusal(response.status, describeFailure(response), error, input.grant);
    const body = jsonObjectOf(response);
    const token = stringOf(body?.access_token);
    if (!token) throw issuanceFailed("the token response has no access_token");
    const tokenType = stringOf(body?.token_type)?.toLowerCase();
    // A DPoP token type without a proof sent cannot be used: treat the token as what was asked for.
    const scheme = useDpop && tokenType === "dpop" ? "DPoP" : "Bearer";
    return { token, scheme, cNonce: stringOf(body?.c_nonce) };
  }
}
