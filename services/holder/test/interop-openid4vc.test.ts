/**
 * Interop: the holder against parties built with the OpenWallet Foundation libraries, hosted in
 * this test over real HTTP: an issuer built with `Openid4vciIssuer` (with `Oauth2AuthorizationServer`
 * for the token endpoint and `Oauth2ResourceServer` guarding the credential endpoint, DPoP required),
 * issuing an SD-JWT VC made with @sd-jwt/sd-jwt-vc; and a verifier built with `Openid4vpVerifier`
 * (signed request object, direct_post and encrypted direct_post.jwt) that checks the presentation
 * with @sd-jwt/sd-jwt-vc. Nothing of Attesto's protocol library signs or verifies on their side.
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes, randomUUID, sign, verify } from "node:crypto";
import { didKeyFromPublicJwk, generateEd25519Jwk, generateP256Jwk, publicJwkFromDidKey } from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import {
  type CallbackContext,
  type HashAlgorithm,
  type Jwk,
  type JwtSigner,
  Oauth2AuthorizationServer,
  Oauth2ResourceServer,
  preAuthorizedCodeGrantIdentifier,
  SupportedAuthenticationScheme,
} from "@openid4vc/oauth2";
import { type IssuerMetadataResult, Openid4vciIssuer, Openid4vciVersion } from "@openid4vc/openid4vci";
import { Openid4vpVerifier } from "@openid4vc/openid4vp";
import { setGlobalConfig } from "@openid4vc/utils";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { CompactEncrypt, compactDecrypt, compactVerify, importJWK, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { p256DidKey } from "./support/holder-keys.js";
import { createDoubleApp, freePort } from "./support/listen.js";
import { type Account, startTestHolder, type TestHolder } from "./support/test-holder.js";

setGlobalConfig({ allowInsecureUrls: true });

const PID_VCT = "https://owf.example/credentials/pid";
const pidClaims = { given_name: "Ada", family_name: "Lovelace", birthdate: "1815-12-10" };

const sha = (alg: string) => alg.replace("-", "").toLowerCase();
const hasher = (data: string | ArrayBuffer, alg = "sha-256") =>
  new Uint8Array(
    createHash(sha(alg))
      .update(typeof data === "string" ? data : Buffer.from(data))
      .digest(),
  );

/** Private keys the OWF parties sign with, by public x. */
const privateKeys = new Map<string, JWK>();
const remember = (jwk: JWK) => {
  privateKeys.set(jwk.x!, jwk);
  const { d: _d, ...publicJwk } = jwk;
  return publicJwk as Jwk;
};

function publicJwkOfSigner(signer: JwtSigner): Jwk {
  if (signer.method === "jwk") return signer.publicJwk;
  if (signer.method === "did" && signer.didUrl.startsWith("did:key:")) return publicJwkFromDidKey(signer.didUrl) as Jwk;
  throw new Error(`signer method ${signer.method} is not supported here`);
}

/** The crypto callbacks of the OWF libraries (jose and node:crypto only). */
const callbacks: CallbackContext = {
  // The pre-authorized flow authenticates no client here.
  clientAuthentication: () => {},
  hash: (data: Uint8Array, alg: HashAlgorithm) => new Uint8Array(createHash(sha(alg)).update(data).digest()),
  generateRandom: (length: number) => new Uint8Array(randomBytes(length)),
  async signJwt(signer, { header, payload }) {
    const publicJwk = publicJwkOfSigner(signer);
    const privateJwk = privateKeys.get(publicJwk.x as string);
    if (!privateJwk) throw new Error("no private key for this signer");
    const jwt = await new SignJWT(payload as Record<string, unknown>)
      .setProtectedHeader(header as never)
      .sign(await importJWK(privateJwk, signer.alg));
    return { jwt, signerJwk: publicJwk };
  },
  async verifyJwt(signer, jwt) {
    try {
      const publicJwk = publicJwkOfSigner(signer);
      await compactVerify(jwt.compact, await importJWK(publicJwk as JWK, signer.alg));
      return { verified: true as const, signerJwk: publicJwk };
    } catch {
      return { verified: false as const };
    }
  },
  async encryptJwe(encryptor, data) {
    const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
      .setProtectedHeader({ alg: encryptor.alg, enc: encryptor.enc })
      .encrypt(await importJWK(encryptor.publicJwk as JWK, encryptor.alg));
    return { jwe, encryptionJwk: encryptor.publicJwk };
  },
  async decryptJwe(jwe, options) {
    const header = JSON.parse(Buffer.from(jwe.split(".")[0]!, "base64url").toString());
    const privateJwk =
      [...privateKeys.values()].find((key) => key.kid === header.kid) ?? (options?.jwk as JWK | undefined);
    if (!privateJwk) return { decrypted: false as const };
    const { plaintext } = await compactDecrypt(jwe, await importJWK(privateJwk, "ECDH-ES"));
    const { d: _d, ...publicJwk } = privateJwk;
    return { decrypted: true as const, decryptionJwk: publicJwk as Jwk, payload: new TextDecoder().decode(plaintext) };
  },
  fetch,
};

/** An SD-JWT VC signer/verifier pair over a node:crypto key (ES256 as IEEE P1363). */
const es256Signer = (privateJwk: JWK) => async (data: string) =>
  sign("sha256", Buffer.from(data), {
    key: createPrivateKey({ key: privateJwk as never, format: "jwk" }),
    dsaEncoding: "ieee-p1363",
  }).toString("base64url");
const jwkVerifier = (publicJwk: JWK) => async (data: string, signature: string) => {
  const key = createPublicKey({ key: publicJwk as never, format: "jwk" });
  const raw = Buffer.from(signature, "base64url");
  return publicJwk.kty === "OKP"
    ? verify(null, Buffer.from(data), key, raw)
    : verify("sha256", Buffer.from(data), { key, dsaEncoding: "ieee-p1363" }, raw);
};

function requestLike(
  app: App,
  request: { url: string; method: string; headers: Record<string, unknown> },
  base: string,
) {
  void app;
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  return { url: `${base}${request.url}`, method: request.method as "POST", headers };
}

interface OwfIssuer {
  link(): Promise<string>;
  issuerDid: string;
  credentialIssuer: string;
  close(): Promise<void>;
}

/** An OID4VCI 1.0 issuer and authorization server built with the OWF libraries. */
async function startOwfIssuer(): Promise<OwfIssuer> {
  const app = await createDoubleApp("owf-issuer");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const credentialIssuer = `${base}/owf`;
  const asId = `${base}/as`;
  const issuer = new Openid4vciIssuer({ callbacks });
  const authorizationServer = new Oauth2AuthorizationServer({ callbacks });
  const resourceServer = new Oauth2ResourceServer({ callbacks });
  const accessTokenKey = remember(generateP256Jwk() as JWK);
  const issuerKey = generateP256Jwk() as JWK;
  const issuerDid = didKeyFromPublicJwk(remember(issuerKey) as never);

  const authorizationServerMetadata = authorizationServer.createAuthorizationServerMetadata({
    issuer: asId,
    token_endpoint: `${asId}/token`,
    jwks_uri: `${asId}/jwks`,
    dpop_signing_alg_values_supported: ["ES256", "EdDSA"],
    grant_types_supported: [preAuthorizedCodeGrantIdentifier],
  });
  const configurations = {
    pid: {
      format: "dc+sd-jwt" as const,
      vct: PID_VCT,
      scope: "pid",
      credential_signing_alg_values_supported: ["ES256"],
      cryptographic_binding_methods_supported: ["did:key", "jwk"],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["ES256", "EdDSA"] } },
    },
  };
  const credentialIssuerMetadata = issuer.createCredentialIssuerMetadata({
    credential_issuer: credentialIssuer,
    credential_endpoint: `${credentialIssuer}/credential`,
    nonce_endpoint: `${credentialIssuer}/nonce`,
    authorization_servers: [asId],
    display: [{ name: "OWF Issuer", locale: "en" }],
    credential_configurations_supported: configurations,
  });
  const issuerMetadata: IssuerMetadataResult = {
    credentialIssuer: credentialIssuerMetadata,
    authorizationServers: [authorizationServerMetadata],
    originalDraftVersion: Openid4vciVersion.V1,
    knownCredentialConfigurations: configurations,
  };
  const offers = new Map<string, unknown>();
  const codes = new Set<string>();
  const nonces = new Set<string>();

  app.get("/.well-known/openid-credential-issuer/owf", async () => credentialIssuerMetadata);
  app.get("/.well-known/oauth-authorization-server/as", async () => authorizationServerMetadata);
  app.get("/as/jwks", async () => ({ keys: [{ ...accessTokenKey, alg: "ES256", use: "sig" }] }));
  // JWT VC Issuer Metadata (SD-JWT VC draft): binds the credentials' kid to the https iss.
  app.get("/.well-known/jwt-vc-issuer/owf", async () => {
    const { kty, crv, x, y } = issuerKey as { kty: string; crv: string; x: string; y: string };
    return {
      issuer: credentialIssuer,
      jwks: { keys: [{ kty, crv, x, y, kid: `${issuerDid}#${issuerDid.slice("did:key:".length)}` }] },
    };
  });
  app.get("/owf/offers/:id", async (request) => offers.get((request.params as { id: string }).id));

  app.post("/as/token", async (request, reply) => {
    const parsed = authorizationServer.parseAccessTokenRequest({
      accessTokenRequest: request.body as Record<string, unknown>,
      request: requestLike(app, request as never, base),
    });
    if (parsed.grant.grantType !== preAuthorizedCodeGrantIdentifier || !codes.delete(parsed.grant.preAuthorizedCode)) {
      return reply.code(400).send({ error: "invalid_grant" });
    }
    const { dpop } = await authorizationServer.verifyPreAuthorizedCodeAccessTokenRequest({
      authorizationServerMetadata,
      grant: parsed.grant,
      accessTokenRequest: parsed.accessTokenRequest,
      expectedPreAuthorizedCode: parsed.grant.preAuthorizedCode,
      request: requestLike(app, request as never, base),
      dpop: { required: true, ...parsed.dpop },
      clientAttestation: { required: false },
    });
    return authorizationServer.createAccessTokenResponse({
      audience: credentialIssuer,
      signer: { method: "jwk", alg: "ES256", publicJwk: accessTokenKey },
      subject: parsed.grant.preAuthorizedCode,
      expiresInSeconds: 300,
      authorizationServer: asId,
      scope: "pid",
      ...(dpop ? { dpop } : {}),
    });
  });

  app.post("/owf/nonce", async () => {
    const cNonce = randomUUID();
    nonces.add(cNonce);
    return issuer.createNonceResponse({ cNonce, cNonceExpiresIn: 300 });
  });

  app.post("/owf/credential", async (request, reply) => {
    await resourceServer.verifyResourceRequest({
      authorizationServers: [authorizationServerMetadata],
      request: requestLike(app, request as never, base),
      resourceServer: credentialIssuer,
      allowedAuthenticationSchemes: [SupportedAuthenticationScheme.DPoP],
    });
    const parsed = issuer.parseCredentialRequest({
      issuerMetadata,
      credentialRequest: request.body as Record<string, unknown>,
    });
    const jwt = parsed.proofs?.jwt?.[0];
    const nonce = jwt ? (JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()).nonce as string) : "";
    if (!jwt || !nonces.delete(nonce)) return reply.code(400).send({ error: "invalid_nonce" });
    const proof = await issuer.verifyCredentialRequestJwtProof({ issuerMetadata, jwt, expectedNonce: nonce });
    const holderJwk = publicJwkOfSigner(proof.signer as JwtSigner);
    const sdJwtVc = new SDJwtVcInstance({
      hasher,
      hashAlg: "sha-256",
      saltGenerator: () => randomBytes(16).toString("base64url"),
      signAlg: "ES256",
      signer: es256Signer(issuerKey),
    });
    const now = Math.floor(Date.now() / 1000);
    const credential = await sdJwtVc.issue(
      { iss: credentialIssuer, iat: now, exp: now + 3600, vct: PID_VCT, cnf: { jwk: holderJwk }, ...pidClaims },
      { _sd: ["given_name", "family_name", "birthdate"] } as never,
      { header: { typ: "dc+sd-jwt", kid: `${issuerDid}#${issuerDid.slice("did:key:".length)}` } },
    );
    return issuer.createCredentialResponse({ credentialRequest: parsed, credentials: [{ credential }] });
  });

  await app.listen({ host: "127.0.0.1", port });
  return {
    issuerDid,
    credentialIssuer,
    async link() {
      const code = randomBytes(16).toString("base64url");
      codes.add(code);
      const id = randomUUID();
      const created = await issuer.createCredentialOffer({
        credentialConfigurationIds: ["pid"],
        grants: { [preAuthorizedCodeGrantIdentifier]: { "pre-authorized_code": code } },
        issuerMetadata,
        credentialOfferUri: `${credentialIssuer}/offers/${id}`,
        credentialOfferScheme: "openid-credential-offer://",
      });
      offers.set(id, created.credentialOfferObject);
      return created.credentialOffer;
    },
    close: () => app.close(),
  };
}

interface OwfVerifier {
  request(mode: "direct_post" | "direct_post.jwt"): Promise<{ link: string; id: string }>;
  /** What the verifier accepted, per request id: the disclosed claims of each presentation. */
  results: Map<string, Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** An OID4VP 1.0 verifier built with the OWF library's Openid4vpVerifier. */
async function startOwfVerifier(issuerKeys: () => JWK): Promise<OwfVerifier> {
  const app = await createDoubleApp("owf-verifier");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const verifier = new Openid4vpVerifier({ callbacks });
  const key = generateEd25519Jwk() as JWK;
  remember(key);
  const did = didKeyFromPublicJwk(remember(key) as never);
  const clientId = `decentralized_identifier:${did}`;
  const sessions = new Map<string, { jwt: string; payload: Record<string, unknown> }>();
  const results = new Map<string, Array<Record<string, unknown>>>();

  app.get("/request/:id", async (request, reply) => {
    const session = sessions.get((request.params as { id: string }).id);
    if (!session) return reply.code(404).send({ error: "not_found" });
    return reply.type("application/oauth-authz-req+jwt").send(session.jwt);
  });

  app.post("/response/:id", async (request, reply) => {
    const id = (request.params as { id: string }).id;
    const session = sessions.get(id)!;
    const parsed = await verifier.parseOpenid4vpAuthorizationResponse({
      authorizationResponse: request.body as Record<string, unknown>,
      authorizationRequestPayload: session.payload as never,
      callbacks,
    });
    if (parsed.type !== "dcql") return reply.code(400).send({ error: "invalid_request" });
    const accepted: Array<Record<string, unknown>> = [];
    for (const presentations of Object.values(parsed.dcql.presentations)) {
      for (const presentation of presentations as string[]) {
        const cnfJwk = (await new SDJwtVcInstance({ hasher }).decode(presentation)).jwt?.payload?.cnf as { jwk: JWK };
        const sdJwtVc = new SDJwtVcInstance({
          hasher,
          verifier: jwkVerifier(issuerKeys()),
          kbVerifier: jwkVerifier(cnfJwk.jwk),
        });
        const { payload, kb } = await sdJwtVc.verify(presentation, {
          keyBindingNonce: session.payload.nonce as string,
        });
        if (kb?.payload.aud !== clientId)
          return reply.code(400).send({ error: "invalid_request", error_description: "aud" });
        accepted.push(payload as Record<string, unknown>);
      }
    }
    results.set(id, accepted);
    return { redirect_uri: `https://owf-rp.example/done/${id}` };
  });

  await app.listen({ host: "127.0.0.1", port });
  return {
    results,
    async request(mode) {
      const id = randomUUID();
      const encryptionKey = { ...(generateP256Jwk() as JWK), kid: randomUUID(), use: "enc", alg: "ECDH-ES" };
      if (mode === "direct_post.jwt") privateKeys.set(encryptionKey.x!, encryptionKey);
      const { d: _d, ...encryptionPublic } = encryptionKey;
      const created = await verifier.createOpenId4vpAuthorizationRequest({
        authorizationRequestPayload: {
          response_type: "vp_token",
          client_id: clientId,
          response_mode: mode,
          response_uri: `${base}/response/${id}`,
          nonce: randomBytes(32).toString("base64url"),
          state: randomBytes(16).toString("base64url"),
          dcql_query: {
            credentials: [
              { id: "pid", format: "dc+sd-jwt", meta: { vct_values: [PID_VCT] }, claims: [{ path: ["given_name"] }] },
            ],
          },
          client_metadata: {
            client_name: "OWF RP",
            vp_formats_supported: {
              "dc+sd-jwt": { "sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256", "EdDSA"] },
            },
            ...(mode === "direct_post.jwt"
              ? { jwks: { keys: [encryptionPublic as never] }, encrypted_response_enc_values_supported: ["A256GCM"] }
              : {}),
          },
        },
        jar: {
          requestUri: `${base}/request/${id}`,
          jwtSigner: { method: "did", didUrl: `${did}#${did.slice("did:key:".length)}`, alg: "EdDSA" },
          expiresInSeconds: 300,
          // 0.4.6 defaults aud to the request URI; OID4VP 1.0 §5.8 wants the Self-Issued constant.
          additionalJwtPayload: { aud: "https://self-issued.me/v2" },
        },
      });
      sessions.set(id, {
        jwt: created.jar!.authorizationRequestJwt,
        payload: created.authorizationRequestPayload as Record<string, unknown>,
      });
      return { link: created.authorizationRequest, id };
    },
    close: () => app.close(),
  };
}

describe("interop: the holder with an OWF Openid4vciIssuer and an OWF Openid4vpVerifier", () => {
  let holder: TestHolder;
  let owfIssuer: OwfIssuer;
  let owfVerifier: OwfVerifier;
  let account: Account;
  const identity = p256DidKey();
  let credentialId: string;

  beforeAll(async () => {
    holder = await startTestHolder();
    owfIssuer = await startOwfIssuer();
    owfVerifier = await startOwfVerifier(() => publicJwkFromDidKey(owfIssuer.issuerDid) as JWK);
    account = await holder.account();
  });
  afterAll(async () => {
    await owfVerifier?.close();
    await owfIssuer?.close();
    await holder?.close();
  });

  it("receives from the OWF issuer: offer, metadata, DPoP token, nonce, proof, credential", async () => {
    const link = await owfIssuer.link();
    const details = await holder.app.inject({
      method: "POST",
      url: "/v1/oid4vci/offer-details",
      headers: account.headers,
      payload: { credential_offer_uri: link },
    });
    expect(details.statusCode, details.body).toBe(200);
    expect(details.json()).toMatchObject({
      issuer: owfIssuer.credentialIssuer,
      issuer_name: "OWF Issuer",
      credential_configurations: [{ id: "pid", format: "dc+sd-jwt", vct: PID_VCT }],
    });
    const response = await holder.app.inject({
      method: "POST",
      url: "/v1/oid4vci/receive",
      headers: account.headers,
      payload: {
        credential_offer_uri: link,
        holder_did: identity.did,
        private_key: identity.privateKey,
        notarize_on_ledger: false,
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ vct: PID_VCT, issuer_did: owfIssuer.issuerDid, holder_did: identity.did });
    credentialId = response.json().credential_id;
    const detail = await holder.app.inject({ method: "GET", url: `/v1/vc/${credentialId}`, headers: account.headers });
    expect(detail.json().claims).toEqual(pidClaims);
  });

  for (const mode of ["direct_post", "direct_post.jwt"] as const) {
    it(`presents to the OWF verifier (${mode}): only given_name is disclosed, the KB-JWT verifies`, async () => {
      const request = await owfVerifier.request(mode);
      const details = await holder.app.inject({
        method: "POST",
        url: "/v1/oid4vp/request-details",
        headers: account.headers,
        payload: { authorization_request_uri: request.link },
      });
      expect(details.statusCode, details.body).toBe(200);
      expect(details.json().matching_credentials).toEqual([
        {
          credential_id: credentialId,
          query_id: "pid",
          vct: PID_VCT,
          claims: { given_name: "Ada" },
          credential_status: "no_status",
        },
      ]);
      const presented = await holder.app.inject({
        method: "POST",
        url: "/v1/oid4vp/presentation",
        headers: account.headers,
        payload: {
          authorization_request_uri: request.link,
          selected_credentials: [{ credential_id: credentialId, query_id: "pid", disclosed_claims: ["given_name"] }],
          holder_did: identity.did,
          private_key: identity.privateKey,
        },
      });
      expect(presented.statusCode, presented.body).toBe(200);
      expect(presented.json()).toEqual({ success: true, redirect_uri: `https://owf-rp.example/done/${request.id}` });
      const accepted = owfVerifier.results.get(request.id)!;
      expect(accepted).toHaveLength(1);
      expect(accepted[0]).toMatchObject({ given_name: "Ada", vct: PID_VCT });
      expect(accepted[0]).not.toHaveProperty("family_name");
      expect(accepted[0]).not.toHaveProperty("birthdate");
    });
  }
});
