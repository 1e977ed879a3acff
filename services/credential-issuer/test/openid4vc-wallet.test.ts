import { createHash, randomBytes } from "node:crypto";
import { decodeIssuerSigned } from "@attesto/protocol/mdoc";
import {
  type CallbackContext,
  calculateJwkThumbprint,
  clientAuthenticationAnonymous,
  decodeJwtHeader,
  type Jwk,
  type JwtSigner,
} from "@openid4vc/oauth2";
import { Openid4vciClient } from "@openid4vc/openid4vci";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMdlType, MDL_DOCTYPE, MDL_NAMESPACE, mdlClaims } from "./support/mdl-type.fixture.js";
import { AS_URL, ISSUER_ID, ISSUER_URL, startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import { createOffer, didIssuer, didKeyOf, ed25519Key, type HolderKey, p256Key } from "./support/wallet.js";
import { createTestChain } from "./support/x509-chain.js";

/**
 * The OpenWallet Foundation wallet client (@openid4vc/openid4vci) against the issuer's routes. Its
 * fetch reaches the app through inject(); a stand-in authorization server answers metadata and the
 * token endpoint by redeeming the code through GrantService, as the real one does.
 */
describe("OpenWallet Foundation wallet client (@openid4vc/openid4vci) against the issuer", () => {
  let issuer: TestIssuer;
  const keys = new Map<string, HolderKey>();
  /** Status codes the credential endpoint answered, in order. */
  let credentialStatuses: number[] = [];
  const remember = (key: HolderKey) => {
    keys.set(JSON.stringify(key.publicJwk), key);
    return key;
  };

  const toResponse = (status: number, body: string, headers: Record<string, unknown>) => {
    const result = new Headers();
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined) result.set(name, Array.isArray(value) ? value.join(", ") : String(value));
    }
    return new Response(status === 204 ? null : body, { status, headers: result });
  };

  /** The authorization server stand-in: metadata, and a token endpoint redeeming through GrantService. */
  async function authorizationServer(url: URL, init: RequestInit): Promise<Response> {
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return Response.json({
        issuer: AS_URL,
        token_endpoint: `${AS_URL}/v1/token`,
        grant_types_supported: ["urn:ietf:params:oauth:grant-type:pre-authorized_code"],
        dpop_signing_alg_values_supported: ["ES256", "EdDSA"],
        "pre-authorized_grant_anonymous_access_supported": true,
      });
    }
    if (url.pathname !== "/v1/token") return new Response("{}", { status: 404 });
    const form = new URLSearchParams(String(init.body));
    const { grant } = await issuer.grants.redeemPreAuthorizedCode({
      preAuthorizedCode: form.get("pre-authorized_code") ?? "",
    });
    const dpop = new Headers(init.headers).get("dpop");
    const jkt = dpop
      ? await calculateJwkThumbprint({
          jwk: decodeJwtHeader({ jwt: dpop }).header.jwk as Jwk,
          hashAlgorithm: "sha-256" as never,
          hashCallback: (data) => createHash("sha256").update(data).digest(),
        })
      : undefined;
    const accessToken = await issuer.accessToken({
      tenant: grant!.tenant,
      offerId: grant!.offerId,
      credentialConfigurationIds: grant!.credentialConfigurationIds,
      dpopRequired: grant!.dpopRequired,
      ...(jkt ? { jkt } : {}),
    });
    return Response.json(
      { access_token: accessToken, token_type: jkt ? "DPoP" : "Bearer", expires_in: 3600 },
      { headers: { "cache-control": "no-store" } },
    );
  }

  const callbacks: Omit<CallbackContext, "verifyJwt" | "decryptJwe" | "encryptJwe"> = {
    hash: (data) => createHash("sha256").update(data).digest(),
    generateRandom: (length) => randomBytes(length),
    clientAuthentication: clientAuthenticationAnonymous(),
    async fetch(input, init = {}) {
      const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
      if (url.origin === AS_URL) return authorizationServer(url, init);
      if (url.origin !== ISSUER_URL) throw new Error(`unexpected fetch of ${url.href}`);
      const response = await issuer.app.inject({
        method: (init.method ?? "GET") as "GET",
        url: `${url.pathname}${url.search}`,
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        ...(init.body === undefined || init.body === null ? {} : { payload: String(init.body) }),
      });
      if (url.pathname === "/credential") credentialStatuses.push(response.statusCode);
      return toResponse(response.statusCode, response.body, response.headers);
    },
    async signJwt(signer: JwtSigner, { header, payload }) {
      const publicJwk =
        signer.method === "jwk" ? signer.publicJwk : keyOfDid(signer.method === "did" ? signer.didUrl : "");
      const key = keys.get(
        JSON.stringify({
          kty: publicJwk.kty,
          crv: publicJwk.crv,
          x: publicJwk.x,
          ...(publicJwk.y ? { y: publicJwk.y } : {}),
        }),
      );
      if (!key) throw new Error("unknown signing key");
      const jwt = await new SignJWT(payload as never).setProtectedHeader(header as never).sign(key.privateJwk as never);
      return { jwt, signerJwk: publicJwk };
    },
  };
  const keyOfDid = (didUrl: string): Jwk => {
    for (const key of keys.values()) if (didUrl.startsWith(didKeyOf(key))) return key.publicJwk as Jwk;
    throw new Error("unknown DID");
  };

  beforeAll(async () => {
    issuer = await startTestIssuer();
    await addMdlType(issuer.doubles as never, createTestChain);
  });
  afterAll(async () => {
    await issuer.close();
  });

  async function receive(
    offerBody: Record<string, unknown>,
    holderSigner: (key: HolderKey) => JwtSigner,
    holderKey: () => HolderKey = ed25519Key,
  ) {
    credentialStatuses = [];
    const created = (await createOffer(issuer, offerBody)).json();
    const client = new Openid4vciClient({ callbacks });
    const credentialOffer = await client.resolveCredentialOffer(created.deep_link);
    const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    const dpopKey = remember(p256Key());
    const dpopSigner = { method: "jwk" as const, alg: "ES256", publicJwk: dpopKey.publicJwk as Jwk };
    const { accessTokenResponse, dpop } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      dpop: { signer: dpopSigner },
    });
    const { c_nonce } = await client.requestNonce({ issuerMetadata });
    const holder = remember(holderKey());
    const configurationId = credentialOffer.credential_configuration_ids[0]!;
    const { jwt } = await client.createCredentialRequestJwtProof({
      issuerMetadata,
      credentialConfigurationId: configurationId,
      signer: holderSigner(holder),
      nonce: c_nonce,
    });
    const result = await client.retrieveCredentials({
      issuerMetadata,
      accessToken: accessTokenResponse.access_token,
      credentialConfigurationId: configurationId,
      proofs: { jwt: [jwt] },
      dpop: { ...dpop, signer: dpopSigner },
    });
    return { issuerMetadata, accessTokenResponse, result, holder };
  }

  it("receives an X.509 (HAIP) credential: DPoP-bound token, nonce endpoint, jwt proof with jwk", async () => {
    const { issuerMetadata, accessTokenResponse, result, holder } = await receive({}, (key) => ({
      method: "jwk",
      alg: "EdDSA",
      publicJwk: key.publicJwk as Jwk,
    }));
    expect(issuerMetadata.credentialIssuer.credential_issuer).toBe(ISSUER_ID);
    expect(accessTokenResponse.token_type).toBe("DPoP");
    // The client followed the resource server's nonce challenge (RFC 9449 §9: 401 use_dpop_nonce), then success.
    expect(credentialStatuses).toEqual([401, 200]);
    const credentials = result.credentialResponse.credentials as Array<{ credential: string }>;
    expect(credentials).toHaveLength(1);
    const [issuerJwt] = credentials[0]!.credential.split("~");
    const payload = JSON.parse(Buffer.from(issuerJwt!.split(".")[1]!, "base64url").toString());
    expect(payload.cnf).toEqual({ jwk: holder.publicJwk });
    expect(JSON.parse(Buffer.from(issuerJwt!.split(".")[0]!, "base64url").toString())).toMatchObject({
      typ: "dc+sd-jwt",
      alg: "ES256",
    });
  });

  it("receives a DID-path credential with a did:key proof", async () => {
    const issuerKey = ed25519Key();
    const { result } = await receive(didIssuer(issuerKey), (key) => ({
      method: "did",
      alg: "EdDSA",
      didUrl: `${didKeyOf(key)}#${didKeyOf(key).slice(8)}`,
    }));
    const credentials = result.credentialResponse.credentials as Array<{ credential: string }>;
    const header = JSON.parse(Buffer.from(credentials[0]!.credential.split(".")[0]!, "base64url").toString());
    expect(header).toEqual({
      typ: "dc+sd-jwt",
      kid: `${didKeyOf(issuerKey)}#${didKeyOf(issuerKey).slice(8)}`,
      alg: "EdDSA",
    });
  });

  it("receives an mDL (mso_mdoc): the client proves a P-256 jwk, the response is a base64url IssuerSigned", async () => {
    const { issuerMetadata, result, holder } = await receive(
      { credential: { config_id: MDL_DOCTYPE, claims: mdlClaims } },
      (key) => ({ method: "jwk", alg: "ES256", publicJwk: key.publicJwk as Jwk }),
      p256Key,
    );
    expect(issuerMetadata.credentialIssuer.credential_configurations_supported[MDL_DOCTYPE]).toMatchObject({
      format: "mso_mdoc",
      doctype: MDL_DOCTYPE,
    });
    const credentials = result.credentialResponse.credentials as Array<{ credential: string }>;
    const mdoc = decodeIssuerSigned(credentials[0]!.credential);
    expect(mdoc.docType).toBe(MDL_DOCTYPE);
    expect(mdoc.deviceKey).toEqual(holder.publicJwk);
    expect(mdoc.namespaces[MDL_NAMESPACE]?.family_name).toBe("Mustermann");
  });
});
