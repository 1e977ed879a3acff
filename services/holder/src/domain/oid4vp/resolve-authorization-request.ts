import "reflect-metadata";
import { createHash, randomBytes } from "node:crypto";
import {
  DidKeyResolutionError,
  decodeCompactJwt,
  isAllowedJwsAlgorithm,
  REQUEST_OBJECT_TYP,
  SdJwtVerificationError,
  SELF_ISSUED_AUDIENCE,
  verifyJwsSignature,
  verifyX5cChain,
} from "@attesto/protocol";
import { DcqlQuery } from "dcql";
import { z } from "zod";
import { invalidAuthorizationRequest } from "../errors.js";
import { fetchFromThirdParty } from "../http/fetch-from-third-party.js";
import { describeFailure, type JsonObject } from "../http/read-json.js";
import type { HolderDependencies } from "../ports.js";
import { resolveDidKey } from "../sd-jwt/resolve-did-key.js";
import { type AuthorizationRequestLink, parseAuthorizationRequestLink } from "./parse-authorization-request-link.js";

/** Response modes the wallet answers with (OID4VP 1.0 §8.2, §8.3). */
export const RESPONSE_MODES = ["direct_post", "direct_post.jwt"] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

const DID_CLIENT_ID_PREFIX = "decentralized_identifier:";

/** A verified authorization request: what the verifier asks, and where the answer goes. */
export interface ResolvedAuthorizationRequest {
  clientId: string;
  clientMetadata: JsonObject;
  /** The DCQL query as the verifier sent it. */
  dcqlQuery: JsonObject;
  nonce: string;
  state: string | undefined;
  responseMode: ResponseMode;
  responseUri: string;
  expiresAt: Date;
}

const zRequestObject = z
  .object({
    client_id: z.string({ error: "client_id is required" }),
    response_type: z.literal("vp_token", { error: "response_type must be vp_token" }),
    response_mode: z.string({ error: "response_mode is required" }),
    response_uri: z.string({ error: "response_uri is required" }),
    nonce: z.string({ error: "nonce is required" }).min(1, "nonce must not be empty"),
    state: z.string().optional(),
    dcql_query: z.record(z.string(), z.unknown(), {
      error: "dcql_query is required (presentation_definition is not supported)",
    }),
    client_metadata: z.record(z.string(), z.unknown()).optional(),
    aud: z.union([z.string(), z.array(z.string())]).optional(),
    exp: z.number({ error: "exp is required (a number)" }),
    iat: z.number().optional(),
    wallet_nonce: z.string().optional(),
  })
  .loose();

async function fetchRequestObject(
  deps: Pick<HolderDependencies, "http">,
  link: AuthorizationRequestLink,
  walletNonce: string,
): Promise<string> {
  if (link.request !== undefined) return link.request;
  const requestUri = link.requestUri!;
  const headers = { accept: "application/oauth-authz-req+jwt, application/jwt" };
  const response = await fetchFromThirdParty(
    deps,
    requestUri,
    "request object",
    invalidAuthorizationRequest,
    link.requestUriMethod === "post"
      ? {
          method: "POST",
          headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ wallet_nonce: walletNonce }).toString(),
        }
      : { method: "GET", headers },
  );
  if (response.status === 404 || response.status === 410) {
    throw invalidAuthorizationRequest(
      `the authorization request is unknown or has expired (the verifier answered ${response.status})`,
    );
  }
  if (response.status !== 200) {
    throw invalidAuthorizationRequest(`the request object could not be fetched (${describeFailure(response)})`);
  }
  return response.text.trim();
}

type ClientIdentity =
  | { kind: "did"; did: string }
  | { kind: "x509_san_dns"; dns: string }
  | { kind: "x509_hash"; hash: string }
  | { kind: "url"; origin: string };

function clientIdentityOf(deps: Pick<HolderDependencies, "http">, clientId: string): ClientIdentity {
  if (clientId.startsWith(DID_CLIENT_ID_PREFIX))
    return { kind: "did", did: clientId.slice(DID_CLIENT_ID_PREFIX.length) };
  if (clientId.startsWith("did:")) return { kind: "did", did: clientId };
  if (clientId.startsWith("x509_san_dns:"))
    return { kind: "x509_san_dns", dns: clientId.slice("x509_san_dns:".length) };
  if (clientId.startsWith("x509_hash:")) return { kind: "x509_hash", hash: clientId.slice("x509_hash:".length) };
  if (/^https?:\/\//i.test(clientId)) {
    const problem = deps.http.checkUrl(clientId);
    if (problem) throw invalidAuthorizationRequest(`the URL client_id ${problem}`);
    return { kind: "url", origin: new URL(clientId).origin };
  }
  throw invalidAuthorizationRequest(
    "the client_id prefix is not supported (decentralized_identifier, x509_san_dns, x509_hash, or an http(s) URL)",
  );
}

/**
 * A URL client_id (the verifier's own URL, no prefix) names no key. As for OID4VP's `redirect_uri`
 * prefix, trust comes from where the answer goes: response_uri must be on the client_id's origin, so
 * only that origin can receive the presentation. The request object then verifies with the public
 * key in its `jwk` header (integrity of the request, not the verifier's identity).
 */
function urlClientKeyOf(
  identity: { origin: string },
  header: JsonObject,
  responseUri: string,
): Record<string, unknown> {
  if (new URL(responseUri).origin !== identity.origin) {
    throw invalidAuthorizationRequest("response_uri must be on the origin of the URL client_id");
  }
  const jwk = header.jwk;
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk) || "d" in jwk) {
    throw invalidAuthorizationRequest("the request object of a URL client_id must carry its public key as jwk");
  }
  return jwk as Record<string, unknown>;
}

/**
 * x509_hash / x509_san_dns (OID4VP 1.0 §5.9.3, HAIP): the request object is signed ES256 by the
 * leaf of its `x5c`, which must chain to one of the wallet's verifier trust anchors (the platform's
 * root CA plus VERIFIER_TRUST_ANCHORS_PEM); the client_id must name that leaf: its SHA-256
 * (x509_hash) or one of its dNSName SANs, with response_uri on that host (x509_san_dns).
 */
async function x509VerifierKeyOf(
  deps: Pick<HolderDependencies, "now" | "verifierTrustAnchors">,
  identity: { kind: "x509_san_dns"; dns: string } | { kind: "x509_hash"; hash: string },
  header: JsonObject,
  responseUri: string,
): Promise<Record<string, unknown>> {
  if (header.alg !== "ES256")
    throw invalidAuthorizationRequest(`an ${identity.kind} request object must be signed ES256`);
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0) {
    throw invalidAuthorizationRequest(`an ${identity.kind} request object must carry its certificate chain in x5c`);
  }
  let chain: Awaited<ReturnType<typeof verifyX5cChain>>;
  try {
    chain = await verifyX5cChain(x5c, await deps.verifierTrustAnchors.anchors(), deps.now());
  } catch (error) {
    if (error instanceof SdJwtVerificationError) {
      throw invalidAuthorizationRequest(`verifier certificate (${error.code}): ${error.message}`);
    }
    throw error;
  }
  if (identity.kind === "x509_hash") {
    const hash = createHash("sha256")
      .update(Buffer.from(String(x5c[0]), "base64"))
      .digest("base64url");
    if (hash !== identity.hash) {
      throw invalidAuthorizationRequest("the x5c leaf certificate does not match the x509_hash client_id");
    }
    return chain.leafPublicJwk;
  }
  if (!chain.leafSubjectAltNames.dnsNames.includes(identity.dns)) {
    throw invalidAuthorizationRequest("the x5c leaf certificate has no DNS name equal to the x509_san_dns client_id");
  }
  if (new URL(responseUri).hostname !== identity.dns) {
    throw invalidAuthorizationRequest("response_uri must be on the host of the x509_san_dns client_id");
  }
  return chain.leafPublicJwk;
}

/** The key that must have signed the request object, by the client_id prefix (OID4VP 1.0 §5.9). */
async function verifierKeyOf(
  deps: Pick<HolderDependencies, "ledger" | "now" | "clockSkewSeconds" | "verifierTrustAnchors">,
  identity: ClientIdentity,
  header: JsonObject,
  responseUri: string,
): Promise<Record<string, unknown>> {
  if (identity.kind === "url") return urlClientKeyOf(identity, header, responseUri);
  if (identity.kind === "did") {
    const kid = typeof header.kid === "string" ? header.kid : identity.did;
    if (kid.split("#")[0] !== identity.did.split("#")[0]) {
      throw invalidAuthorizationRequest("the request object's kid is not a key of the client_id DID");
    }
    try {
      return (await resolveDidKey(deps, kid)).publicJwk as unknown as Record<string, unknown>;
    } catch (error) {
      if (error instanceof DidKeyResolutionError) throw invalidAuthorizationRequest(`verifier key: ${error.message}`);
      throw error;
    }
  }
  return x509VerifierKeyOf(deps, identity, header, responseUri);
}

function checkClaims(
  deps: Pick<HolderDependencies, "http" | "now" | "clockSkewSeconds">,
  payload: JsonObject,
  link: AuthorizationRequestLink,
  walletNonce: string,
): z.infer<typeof zRequestObject> {
  const parsed = zRequestObject.safeParse(payload);
  if (!parsed.success) {
    throw invalidAuthorizationRequest(
      `the request object is invalid: ${parsed.error.issues[0]?.message ?? "malformed"}`,
    );
  }
  const claims = parsed.data;
  if (link.clientId !== undefined && claims.client_id !== link.clientId) {
    throw invalidAuthorizationRequest("the request object's client_id is not the client_id of the link");
  }
  // OID4VP 1.0 §5.8: with static discovery the audience is the Self-Issued constant; absent is tolerated.
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud ?? SELF_ISSUED_AUDIENCE];
  if (!audiences.includes(SELF_ISSUED_AUDIENCE)) {
    throw invalidAuthorizationRequest(`the request object's aud must be ${SELF_ISSUED_AUDIENCE}`);
  }
  const now = deps.now().getTime() / 1000;
  if (claims.exp <= now) throw invalidAuthorizationRequest("the authorization request has expired");
  if (claims.iat !== undefined && claims.iat > now + deps.clockSkewSeconds) {
    throw invalidAuthorizationRequest("the request object is issued in the future (iat)");
  }
  if (!(RESPONSE_MODES as readonly string[]).includes(claims.response_mode)) {
    throw invalidAuthorizationRequest(`the response_mode is not supported (${RESPONSE_MODES.join(", ")})`);
  }
  const problem = deps.http.checkUrl(claims.response_uri);
  if (problem) throw invalidAuthorizationRequest(`response_uri ${problem}`);
  if (link.requestUriMethod === "post" && link.requestUri && claims.wallet_nonce !== walletNonce) {
    throw invalidAuthorizationRequest("the request object does not echo the wallet_nonce");
  }
  try {
    DcqlQuery.validate(DcqlQuery.parse(withoutTrustedAuthorities(claims.dcql_query) as DcqlQuery.Input));
  } catch (error) {
    throw invalidAuthorizationRequest(
      `dcql_query is invalid: ${error instanceof Error ? error.message.slice(0, 200) : "rejected by the DCQL parser"}`,
    );
  }
  return claims;
}

/** The `dcql` library's trusted-authority types do not include `did`; they are evaluated by the holder. */
export function withoutTrustedAuthorities(query: JsonObject): JsonObject {
  const credentials = Array.isArray(query.credentials) ? query.credentials : [];
  return {
    ...query,
    credentials: credentials.map((credential) => {
      if (typeof credential !== "object" || credential === null) return credential;
      const { trusted_authorities: _ignored, ...rest } = credential as JsonObject;
      return rest;
    }),
  };
}

/**
 * An openid4vp link resolved and verified as a wallet must (OID4VP 1.0 §5, RFC 9101):
 * 1. parse the link (client_id, request_uri or request);
 * 2. fetch the request object (GET, or POST with a wallet_nonce for request_uri_method=post);
 * 3. header: `typ` oauth-authz-req+jwt, alg ES256 or EdDSA;
 * 4. signature by the client_id's key: a DID (decentralized_identifier:, did:key or did:ledger, by
 *    `kid`), an x5c leaf chaining to the wallet's verifier trust anchors and matching x509_san_dns /
 *    x509_hash (ES256 only), or for a URL client_id the header's
 *    `jwk` when response_uri is on the client_id's origin;
 * 5. claims: client_id as in the link, aud, exp (expired => 400), response_type vp_token,
 *    response_mode direct_post(.jwt), response_uri, nonce, dcql_query valid.
 * Every failure is 400 `invalid_authorization_request`.
 */
export async function resolveAuthorizationRequest(
  deps: Pick<HolderDependencies, "http" | "ledger" | "now" | "clockSkewSeconds" | "verifierTrustAnchors">,
  uri: string,
): Promise<ResolvedAuthorizationRequest> {
  const link = parseAuthorizationRequestLink(uri);
  const walletNonce = randomBytes(16).toString("base64url");
  const jwt = await fetchRequestObject(deps, link, walletNonce);
  let decoded: ReturnType<typeof decodeCompactJwt>;
  try {
    decoded = decodeCompactJwt(jwt, "invalid_request_object", "the request object");
  } catch (error) {
    if (error instanceof SdJwtVerificationError) throw invalidAuthorizationRequest(error.message);
    throw error;
  }
  const { header, payload } = decoded;
  if (header.typ !== REQUEST_OBJECT_TYP) {
    throw invalidAuthorizationRequest(`the request object's typ must be ${REQUEST_OBJECT_TYP}`);
  }
  if (!isAllowedJwsAlgorithm(header.alg)) {
    throw invalidAuthorizationRequest("the request object's alg must be ES256 or EdDSA");
  }
  const claims = checkClaims(deps, payload, link, walletNonce);
  const verifierKey = await verifierKeyOf(deps, clientIdentityOf(deps, claims.client_id), header, claims.response_uri);
  if (!(await verifyJwsSignature(jwt, verifierKey))) {
    throw invalidAuthorizationRequest("the request object's signature does not verify");
  }
  return {
    clientId: claims.client_id,
    clientMetadata: claims.client_metadata ?? {},
    dcqlQuery: claims.dcql_query,
    nonce: claims.nonce,
    state: claims.state,
    responseMode: claims.response_mode as ResponseMode,
    responseUri: claims.response_uri,
    expiresAt: new Date(claims.exp * 1000),
  };
}
