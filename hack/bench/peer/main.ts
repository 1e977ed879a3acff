/**
 * The bench's peer: what a TypeScript team would assemble instead of Attesto. One process, the
 * OpenWallet Foundation libraries (@openid4vc/openid4vci over @openid4vc/oauth2 for the issuer and
 * its token endpoint, @openid4vc/openid4vp for the verifier), @sd-jwt/sd-jwt-vc for the
 * credential, Fastify for HTTP, and every record in memory. It serves the same paths the bench's
 * flows call on Attesto, so the very same flow code drives both (flows.ts):
 *
 *   POST /v1/offers -> GET /offers/:id -> POST /v1/token -> POST /v1/nonce -> POST /credential
 *   POST /v1/verifier/authorization-request -> GET /request/:id -> POST /response/:id
 *     -> GET /v1/verifier/result/:id
 *
 * Pre-authorized codes and c_nonces are single use (deleted when redeemed); tokens are ES256 JWTs
 * the resource server verifies; the SD-JWT VC is signed with EdDSA, every claim disclosable, bound
 * to the key of the proof. It persists nothing, checks no API key, has no DPoP, schemas, tenants,
 * key custody or ledger: a floor, not an equivalent. PEER_PORT (default 8090 + BENCH_PORT_OFFSET).
 */
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import formbody from "@fastify/formbody";
import {
  type Jwk,
  Oauth2AuthorizationServer,
  Oauth2ResourceServer,
  preAuthorizedCodeGrantIdentifier,
  SupportedAuthenticationScheme,
} from "@openid4vc/oauth2";
import { type IssuerMetadataResult, Openid4vciIssuer, Openid4vciVersion } from "@openid4vc/openid4vci";
import { Openid4vpVerifier } from "@openid4vc/openid4vp";
import { setGlobalConfig } from "@openid4vc/utils";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import Fastify, { type FastifyRequest } from "fastify";
import { hasher, type PeerKey, peerCallbacks, publicKeyOf, signRaw, verifyRaw } from "./callbacks.js";

setGlobalConfig({ allowInsecureUrls: true });

const port = Number(process.env.PEER_PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error("PEER_PORT must be a port number");
const base = `http://127.0.0.1:${port}`;
const CONFIGURATION_ID = "university-diploma";
const VCT = `${base}/vct/${CONFIGURATION_ID}`;
/** Unredeemed offers, codes and nonces expire; sessions are dropped once their result was read. */
const TTL_MS = 300_000;

function newKey(type: "ec" | "ed25519"): PeerKey {
  const { privateKey, publicKey } =
    type === "ec" ? generateKeyPairSync("ec", { namedCurve: "P-256" }) : generateKeyPairSync("ed25519");
  const { kty, crv, x, y } = publicKey.export({ format: "jwk" });
  return { privateKey, publicJwk: { kty: kty!, crv: crv!, x: x!, ...(y ? { y } : {}) } as Jwk };
}

const base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
function didKeyOfEd25519(x: string): string {
  let value = BigInt(`0x${Buffer.concat([Buffer.from([0xed, 0x01]), Buffer.from(x, "base64url")]).toString("hex")}`);
  let out = "";
  while (value > 0n) {
    out = base58[Number(value % 58n)]! + out;
    value /= 58n;
  }
  return `did:key:z${out}`;
}

const accessTokenKey = newKey("ec");
const issuerKey = newKey("ed25519");
const verifierKey = newKey("ed25519");
const verifierDid = didKeyOfEd25519(verifierKey.publicJwk.x as string);
const keys = new Map<string, PeerKey>(
  [accessTokenKey, issuerKey, verifierKey].map((key) => [key.publicJwk.x as string, key]),
);
const asId = `${base}/as`;
const credentialIssuer = base;
const local = new Map<string, unknown>([
  [`${asId}/jwks`, { keys: [{ ...accessTokenKey.publicJwk, alg: "ES256", use: "sig" }] }],
]);
const callbacks = peerCallbacks({ keys, didKeys: new Map([[verifierDid, verifierKey.publicJwk]]), local });

// --- issuer -------------------------------------------------------------------------------------

const issuer = new Openid4vciIssuer({ callbacks });
const authorizationServer = new Oauth2AuthorizationServer({ callbacks });
const resourceServer = new Oauth2ResourceServer({ callbacks });
const authorizationServerMetadata = authorizationServer.createAuthorizationServerMetadata({
  issuer: asId,
  token_endpoint: `${base}/v1/token`,
  jwks_uri: `${asId}/jwks`,
  grant_types_supported: [preAuthorizedCodeGrantIdentifier],
});
const configurations = {
  [CONFIGURATION_ID]: {
    format: "dc+sd-jwt" as const,
    vct: VCT,
    scope: CONFIGURATION_ID,
    credential_signing_alg_values_supported: ["EdDSA"],
    cryptographic_binding_methods_supported: ["jwk"],
    proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["ES256", "EdDSA"] } },
  },
};
const credentialIssuerMetadata = issuer.createCredentialIssuerMetadata({
  credential_issuer: credentialIssuer,
  credential_endpoint: `${base}/credential`,
  nonce_endpoint: `${base}/v1/nonce`,
  authorization_servers: [asId],
  credential_configurations_supported: configurations,
});
const issuerMetadata: IssuerMetadataResult = {
  credentialIssuer: credentialIssuerMetadata,
  authorizationServers: [authorizationServerMetadata],
  originalDraftVersion: Openid4vciVersion.V1,
  knownCredentialConfigurations: configurations,
};
const sdJwtVc = new SDJwtVcInstance({
  hasher,
  hashAlg: "sha-256",
  saltGenerator: () => randomBytes(16).toString("base64url"),
  signAlg: "EdDSA",
  signer: (data: string) => signRaw(issuerKey.privateKey, data),
});

interface Offer {
  id: string;
  document: unknown;
  claims: Record<string, unknown>;
  expiresAt: number;
}
/** By offer id: the offer document; by pre-authorized code: the claims to issue. */
const offers = new Map<string, Offer>();
const codes = new Map<string, Offer>();
/** Issued access tokens' subjects (the pre-authorized code) -> claims. */
const grants = new Map<string, Offer>();
const nonces = new Map<string, number>();

// --- verifier -----------------------------------------------------------------------------------

const verifier = new Openid4vpVerifier({ callbacks });
const clientId = `decentralized_identifier:${verifierDid}`;
interface Session {
  jwt: string;
  payload: Record<string, unknown>;
  status: "pending" | "completed" | "failed";
  expiresAt: number;
}
const sessions = new Map<string, Session>();
const kbVerifier = (data: string, signature: string, payload: Record<string, unknown>) => {
  const cnf = payload.cnf as { jwk?: Jwk } | undefined;
  return cnf?.jwk ? verifyRaw(publicKeyOf(cnf.jwk), data, signature) : false;
};
const presentationVerifier = new SDJwtVcInstance({
  hasher,
  verifier: (data: string, signature: string) => verifyRaw(publicKeyOf(issuerKey.publicJwk), data, signature),
  kbVerifier: kbVerifier as never,
});

// --- HTTP ---------------------------------------------------------------------------------------

const app = Fastify({ logger: false });
await app.register(formbody);
const requestLike = (request: FastifyRequest) => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  return { url: `${base}${request.url}`, method: request.method as "POST", headers };
};

app.post("/v1/offers", async (request, reply) => {
  const body = request.body as { credential?: { claims?: Record<string, unknown> } };
  const claims = body?.credential?.claims;
  if (!claims || typeof claims !== "object") return reply.code(400).send({ error: "invalid_request" });
  const id = randomUUID();
  const code = randomBytes(32).toString("base64url");
  const created = await issuer.createCredentialOffer({
    credentialConfigurationIds: [CONFIGURATION_ID],
    grants: { [preAuthorizedCodeGrantIdentifier]: { "pre-authorized_code": code } },
    issuerMetadata,
    credentialOfferUri: `${base}/offers/${id}`,
  });
  const offer = { id, document: created.credentialOfferObject, claims, expiresAt: Date.now() + TTL_MS };
  offers.set(id, offer);
  codes.set(code, offer);
  return reply
    .code(201)
    .send({ credential_offer_uri: `${base}/offers/${id}`, credential_offer: created.credentialOffer });
});

app.get("/offers/:id", async (request, reply) => {
  const offer = offers.get((request.params as { id: string }).id);
  if (!offer) return reply.code(404).send({ error: "not_found" });
  return offer.document;
});

app.post("/v1/token", async (request, reply) => {
  const parsed = authorizationServer.parseAccessTokenRequest({
    accessTokenRequest: request.body as Record<string, unknown>,
    request: requestLike(request),
  });
  if (parsed.grant.grantType !== preAuthorizedCodeGrantIdentifier) {
    return reply.code(400).send({ error: "unsupported_grant_type" });
  }
  const code = parsed.grant.preAuthorizedCode;
  const offer = codes.get(code);
  if (!offer || offer.expiresAt < Date.now()) return reply.code(400).send({ error: "invalid_grant" });
  codes.delete(code);
  offers.delete(offer.id);
  await authorizationServer.verifyPreAuthorizedCodeAccessTokenRequest({
    authorizationServerMetadata,
    grant: parsed.grant,
    accessTokenRequest: parsed.accessTokenRequest,
    expectedPreAuthorizedCode: code,
    request: requestLike(request),
    dpop: { required: false },
    clientAttestation: { required: false },
  });
  const subject = randomUUID();
  grants.set(subject, offer);
  return authorizationServer.createAccessTokenResponse({
    audience: credentialIssuer,
    signer: { method: "jwk", alg: "ES256", publicJwk: accessTokenKey.publicJwk },
    subject,
    expiresInSeconds: 300,
    authorizationServer: asId,
    scope: CONFIGURATION_ID,
  });
});

app.post("/v1/nonce", async () => {
  const cNonce = randomBytes(32).toString("base64url");
  nonces.set(cNonce, Date.now() + TTL_MS);
  return issuer.createNonceResponse({ cNonce, cNonceExpiresIn: TTL_MS / 1000 });
});

app.post("/credential", async (request, reply) => {
  const { tokenPayload } = await resourceServer.verifyResourceRequest({
    authorizationServers: [authorizationServerMetadata],
    request: requestLike(request),
    resourceServer: credentialIssuer,
    allowedAuthenticationSchemes: [SupportedAuthenticationScheme.Bearer],
  });
  const offer = grants.get(tokenPayload.sub as string);
  if (!offer) return reply.code(401).send({ error: "invalid_token" });
  const parsed = issuer.parseCredentialRequest({
    issuerMetadata,
    credentialRequest: request.body as Record<string, unknown>,
  });
  const jwt = parsed.proofs?.jwt?.[0];
  if (!jwt) return reply.code(400).send({ error: "invalid_proof" });
  const nonce = JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()).nonce as string;
  const nonceExpiry = nonces.get(nonce);
  if (nonceExpiry === undefined || nonceExpiry < Date.now()) return reply.code(400).send({ error: "invalid_nonce" });
  nonces.delete(nonce);
  const proof = await issuer.verifyCredentialRequestJwtProof({ issuerMetadata, jwt, expectedNonce: nonce });
  if (proof.signer.method !== "jwk") return reply.code(400).send({ error: "invalid_proof" });
  grants.delete(tokenPayload.sub as string);
  const now = Math.floor(Date.now() / 1000);
  const credential = await sdJwtVc.issue(
    {
      iss: credentialIssuer,
      iat: now,
      exp: now + 3600,
      vct: VCT,
      cnf: { jwk: proof.signer.publicJwk },
      ...offer.claims,
    },
    { _sd: Object.keys(offer.claims) } as never,
    { header: { typ: "dc+sd-jwt" } },
  );
  return issuer.createCredentialResponse({ credentialRequest: parsed, credentials: [{ credential }] });
});

app.post("/v1/verifier/authorization-request", async (request, reply) => {
  const body = request.body as { dcql_query?: unknown };
  if (!body?.dcql_query) return reply.code(400).send({ error: "invalid_request" });
  const id = randomUUID();
  const created = await verifier.createOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: {
      response_type: "vp_token",
      client_id: clientId,
      response_mode: "direct_post",
      response_uri: `${base}/response/${id}`,
      nonce: randomBytes(32).toString("base64url"),
      state: randomBytes(16).toString("base64url"),
      dcql_query: body.dcql_query as never,
      client_metadata: {
        vp_formats_supported: {
          "dc+sd-jwt": { "sd-jwt_alg_values": ["EdDSA"], "kb-jwt_alg_values": ["ES256", "EdDSA"] },
        },
      },
    },
    jar: {
      requestUri: `${base}/request/${id}`,
      jwtSigner: { method: "did", didUrl: `${verifierDid}#${verifierDid.slice("did:key:".length)}`, alg: "EdDSA" },
      expiresInSeconds: 300,
      additionalJwtPayload: { aud: "https://self-issued.me/v2" },
    },
  });
  sessions.set(id, {
    jwt: created.jar!.authorizationRequestJwt,
    payload: created.authorizationRequestPayload as Record<string, unknown>,
    status: "pending",
    expiresAt: Date.now() + TTL_MS,
  });
  return reply.code(201).send({ session_id: id, request_uri: `${base}/request/${id}` });
});

app.get("/request/:id", async (request, reply) => {
  const session = sessions.get((request.params as { id: string }).id);
  if (!session) return reply.code(404).send({ error: "not_found" });
  return reply.type("application/oauth-authz-req+jwt").send(session.jwt);
});

app.post("/response/:id", async (request, reply) => {
  const session = sessions.get((request.params as { id: string }).id);
  if (session?.status !== "pending") return reply.code(400).send({ error: "invalid_request" });
  session.status = "failed";
  const parsed = await verifier.parseOpenid4vpAuthorizationResponse({
    authorizationResponse: request.body as Record<string, unknown>,
    authorizationRequestPayload: session.payload as never,
    callbacks,
  });
  if (parsed.type !== "dcql") return reply.code(400).send({ error: "invalid_request" });
  for (const presentations of Object.values(parsed.dcql.presentations)) {
    for (const presentation of presentations as string[]) {
      const { kb } = await presentationVerifier.verify(presentation, {
        keyBindingNonce: session.payload.nonce as string,
        requiredClaimKeys: ["given_name", "family_name"],
      });
      if (kb?.payload.aud !== clientId) return reply.code(400).send({ error: "invalid_request" });
    }
  }
  session.status = "completed";
  return {};
});

app.get("/v1/verifier/result/:id", async (request, reply) => {
  const id = (request.params as { id: string }).id;
  const session = sessions.get(id);
  if (!session) return reply.code(404).send({ error: "not_found" });
  if (session.status !== "pending") sessions.delete(id);
  return { status: session.status, check_results: [] };
});

app.get("/health", async () => ({ status: "ok", service: "library-peer" }));

/** Bounded memory: whatever was never redeemed expires. */
setInterval(() => {
  const now = Date.now();
  for (const map of [offers, codes, grants, sessions] as Array<Map<string, { expiresAt: number }>>) {
    for (const [key, value] of map) if (value.expiresAt < now) map.delete(key);
  }
  for (const [nonce, expiresAt] of nonces) if (expiresAt < now) nonces.delete(nonce);
}, 30_000).unref();

await app.listen({ host: "127.0.0.1", port });
const stop = async () => {
  await app.close();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
