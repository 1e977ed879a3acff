/**
 * Interop, verification: credentials issued by the real platform to the OpenWallet Foundation
 * wallet client are presented to the real verifier by the OWF OID4VP wallet library
 * (@openid4vc/openid4vp `Openid4vpClient`): it resolves our `openid4vp://` request, fetches the
 * request object and verifies its signature (did:key, through its callbacks), and posts a
 * presentation built by @sd-jwt/sd-jwt-vc (KB-JWT with aud = client_id and the request nonce),
 * plain in direct_post and encrypted (ECDH-ES, jose) in direct_post.jwt. The relying party then
 * reads the result.
 */
import { createHash, randomBytes } from "node:crypto";
import type { CallbackContext, JweEncryptor, JwtSigner } from "@openid4vc/oauth2";
import { Openid4vpClient } from "@openid4vc/openid4vp";
import { setGlobalConfig } from "@openid4vc/utils";
import { CompactEncrypt, compactVerify, importJWK, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { didKeyOf, publicJwkOfDidKey, type WalletKey, walletKey } from "./support/keys.js";
import { type InteropPlatform, startInteropPlatform } from "./support/platform.js";
import { decodeSdJwt, presentSdJwtVc } from "./support/sd-jwt.js";
import { applyTenant, createOffer, createOrganizationDid, DIPLOMA_CLAIMS, type Tenant } from "./support/tenant.js";
import { InteropWallet, receiveCredential } from "./support/wallet.js";

// The platform runs on http://localhost in tests.
setGlobalConfig({ allowInsecureUrls: true });

/** Ports 29281..29288 / 30281..30288: see test/interop/support/platform.ts for the offsets in use. */
const PORT_OFFSET = 21_200;

type ResponseMode = "direct_post" | "direct_post.jwt";

interface HeldCredential {
  credential: string;
  holder: WalletKey;
  vct: string;
  issuer: string;
}

/** What the OID4VP wallet fetched: method and path. */
const walletRequests: string[] = [];

/** The OID4VP wallet's crypto as callbacks: did:key request-object verification, ECDH-ES encryption. */
const callbacks: Omit<CallbackContext, "generateRandom" | "clientAuthentication"> = {
  hash: (data, alg) => new Uint8Array(createHash(alg.replace("-", "").toLowerCase()).update(data).digest()),
  async verifyJwt(signer: JwtSigner, jwt: { compact: string }) {
    if (signer.method !== "did" || !signer.didUrl.startsWith("did:key:")) return { verified: false as const };
    const publicJwk = publicJwkOfDidKey(signer.didUrl);
    try {
      await compactVerify(jwt.compact, await importJWK(publicJwk as JWK, signer.alg));
      return { verified: true as const, signerJwk: publicJwk };
    } catch {
      return { verified: false as const };
    }
  },
  async signJwt(): Promise<never> {
    throw new Error("the wallet signs nothing here but its KB-JWT (made with @sd-jwt/sd-jwt-vc)");
  },
  async encryptJwe(encryptor: JweEncryptor, data: string) {
    const publicJwk = encryptor.publicJwk as JWK;
    const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
      .setProtectedHeader({ alg: encryptor.alg, enc: encryptor.enc, ...(publicJwk.kid ? { kid: publicJwk.kid } : {}) })
      .setKeyManagementParameters({
        ...(encryptor.apu ? { apu: Buffer.from(encryptor.apu, "base64url") } : {}),
        ...(encryptor.apv ? { apv: Buffer.from(encryptor.apv, "base64url") } : {}),
      })
      .encrypt(await importJWK(publicJwk, encryptor.alg));
    return { jwe, encryptionJwk: encryptor.publicJwk };
  },
  async decryptJwe(): Promise<never> {
    throw new Error("the wallet decrypts nothing");
  },
  fetch: ((input: string | URL | Request, init?: RequestInit) => {
    walletRequests.push(`${(init?.method ?? "GET").toUpperCase()} ${new URL(String(input)).pathname}`);
    return fetch(input, init);
  }) as CallbackContext["fetch"],
};

/** The relying party's signing identity: an Ed25519 seed and its did:key (made without platform code). */
function relyingPartyIdentity() {
  const key = walletKey("EdDSA");
  return { privateKey: key.privateKey.export({ format: "jwk" }).d!, did: didKeyOf(key) };
}

describe("interop: OWF OID4VP wallet presents platform-issued credentials to the running verifier", () => {
  let platform: InteropPlatform;
  let tenant: Tenant;
  const held: Record<"did" | "x509", HeldCredential> = {} as never;

  beforeAll(async () => {
    platform = await startInteropPlatform({ portOffset: PORT_OFFSET, label: "verification" });
    tenant = await applyTenant(platform, "interop-verifier");
    const did = await createOrganizationDid(platform, tenant);
    for (const path of ["did", "x509"] as const) {
      const wallet = new InteropWallet();
      const holder = wallet.key("ES256");
      const offer = await createOffer(platform, tenant, path === "did" ? { did } : {});
      const received = await receiveCredential(wallet, offer.deep_link, {
        dpop: path === "x509",
        proofKey: holder,
        proofKeyReference: "jwk",
      });
      const configuration = received.issuerMetadata.credentialIssuer.credential_configurations_supported[
        received.credentialConfigurationId
      ] as unknown as { vct: string };
      held[path] = {
        credential: received.credential,
        holder,
        vct: configuration.vct,
        issuer: received.credentialIssuer,
      };
    }
  });
  afterAll(async () => {
    await platform?.close();
  });

  const diplomaQuery = (vct: string) => ({
    credentials: [
      {
        id: "diploma",
        format: "dc+sd-jwt",
        meta: { vct_values: [vct] },
        claims: [{ path: ["given_name"] }, { path: ["family_name"] }, { path: ["degree", "name"] }],
      },
    ],
  });

  async function createRequest(vct: string, responseMode: ResponseMode, redirectUri?: string) {
    const identity = relyingPartyIdentity();
    const response = await fetch(`${platform.url("verifier")}/v1/verifier/authorization-request`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
      body: JSON.stringify({
        dcql_query: diplomaQuery(vct),
        verifier_private_key: identity.privateKey,
        verifier_client_id: identity.did,
        response_mode: responseMode,
        client_metadata: { client_name: "Interop Rentals" },
        ...(redirectUri ? { redirect_uri: redirectUri } : {}),
      }),
    });
    const body = await response.text();
    expect(response.status, body).toBe(201);
    return { identity, created: JSON.parse(body) as { session_id: string; authorization_request: string } };
  }

  async function result(sessionId: string) {
    const response = await fetch(`${platform.url("verifier")}/v1/verifier/result/${sessionId}`, {
      headers: { "x-api-key": tenant.apiKey },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      status: string;
      check_results: Array<{ check: string; status: string; reason_code: string }>;
      presentation_metadata?: { claims: Record<string, unknown>; credential_metadata: unknown[] };
    };
  }

  /** The OWF wallet's whole presentation: resolve, verify the request, present, (encrypt,) post. */
  async function present(
    authorizationRequest: string,
    credential: HeldCredential,
    options: { responseMode: ResponseMode; nonce?: (requestNonce: string) => string },
  ) {
    const wallet = new Openid4vpClient({ callbacks });
    walletRequests.length = 0;
    const parsed = wallet.parseOpenid4vpAuthorizationRequest({ authorizationRequest });
    expect(parsed.type).toBe("jar");
    const resolved = await wallet.resolveOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: parsed.params as never,
    });
    const request = resolved.authorizationRequestPayload as Record<string, unknown> & {
      client_id: string;
      nonce: string;
      response_uri: string;
    };
    const nonce = options.nonce ? options.nonce(request.nonce) : request.nonce;
    const vp = await presentSdJwtVc(
      credential.credential,
      { given_name: true, family_name: true, degree: { name: true } },
      credential.holder,
      { aud: request.client_id, nonce },
    );
    const response = await wallet.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: resolved.authorizationRequestPayload,
      authorizationResponsePayload: { vp_token: { diploma: [vp] } },
      ...(options.responseMode === "direct_post.jwt"
        ? {
            jarm: {
              encryption: { nonce: randomBytes(16).toString("base64url") },
              serverMetadata: {
                authorization_signing_alg_values_supported: [],
                authorization_encryption_alg_values_supported: ["ECDH-ES"],
                authorization_encryption_enc_values_supported: ["A256GCM", "A128GCM"],
              },
            },
          }
        : {}),
    });
    if (options.responseMode === "direct_post.jwt") expect(response.jarm?.responseJwt.split(".")).toHaveLength(5);
    const submitted = await wallet.submitOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: request,
      authorizationResponsePayload: response.authorizationResponsePayload,
      ...(response.jarm ? { jarm: { responseJwt: response.jarm.responseJwt } } : {}),
    });
    return { resolved, request, vp, submitted };
  }

  const cases: Array<{ path: "did" | "x509"; responseMode: ResponseMode }> = [
    { path: "did", responseMode: "direct_post" },
    { path: "x509", responseMode: "direct_post.jwt" },
    { path: "x509", responseMode: "direct_post" },
    { path: "did", responseMode: "direct_post.jwt" },
  ];

  for (const { path, responseMode } of cases) {
    it(`${path === "did" ? "DID-signed" : "X.509-signed"} credential in ${responseMode}: completed with the disclosed claims only`, async () => {
      const credential = held[path];
      const redirectUri = "https://rentals.interop.example/done";
      const { identity, created } = await createRequest(credential.vct, responseMode, redirectUri);
      expect(created.authorization_request).toMatch(/^openid4vp:\/\/\?client_id=.+&request_uri=.+/);
      expect((await result(created.session_id)).status).toBe("pending");

      const { resolved, request, vp, submitted } = await present(created.authorization_request, credential, {
        responseMode,
      });
      // The library verified the request object's signature with the relying party's did:key.
      expect(resolved.client).toMatchObject({ prefix: "decentralized_identifier", identifier: identity.did });
      expect(resolved.jar?.signer).toMatchObject({ method: "did", didUrl: expect.stringMatching(/^did:key:/) });
      expect(resolved.dcql?.query).toEqual(diplomaQuery(credential.vct));
      expect(request).toMatchObject({
        client_id: `decentralized_identifier:${identity.did}`,
        response_mode: responseMode,
        response_uri: `${platform.url("verifier")}/v1/verifier/presentation`,
      });
      expect(request.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // The presentation discloses three of the credential's claims and carries a KB-JWT.
      const decoded = decodeSdJwt(vp);
      expect(decoded.keyBindingJwt).toBeDefined();
      expect(decoded.disclosures.map((d) => d.value.at(-2)).sort()).toEqual(
        ["degree", "family_name", "given_name", "name"].sort(),
      );

      expect(submitted.response.status).toBe(200);
      expect(await submitted.response.json()).toEqual({
        redirect_uri: `${redirectUri}?session_id=${created.session_id}`,
      });
      const requestPath = new URL(decodeURIComponent(created.authorization_request.split("request_uri=")[1]!)).pathname;
      expect(walletRequests).toEqual([`GET ${requestPath}`, "POST /v1/verifier/presentation"]);

      const verified = await result(created.session_id);
      expect(verified.check_results.map((c) => `${c.check}: ${c.status} ${c.reason_code}`)).toEqual([
        "sd_jwt_structure: success valid",
        "issuer_signature: success valid",
        "issuer_trust: success registered",
        "credential_type: success valid",
        "vct: success valid",
        "validity: success valid",
        "holder_binding: success valid",
        "dcql: success satisfied",
        "trusted_authorities: skipped not_requested",
        "revocation: success valid",
      ]);
      expect(verified).toMatchObject({
        status: "completed",
        presentation_metadata: {
          claims: {
            given_name: DIPLOMA_CLAIMS.given_name,
            family_name: DIPLOMA_CLAIMS.family_name,
            degree: { name: DIPLOMA_CLAIMS.degree.name },
          },
          credential_metadata: [{ issuer: credential.issuer, credential_type: [credential.vct] }],
        },
      });
      // Only what was disclosed: no birth_date, institution, awarded_on, degree.type.
      expect(verified.presentation_metadata!.claims).toEqual({
        given_name: DIPLOMA_CLAIMS.given_name,
        family_name: DIPLOMA_CLAIMS.family_name,
        degree: { name: DIPLOMA_CLAIMS.degree.name },
      });
    });
  }

  it("a KB-JWT over the wrong nonce ends the session failed: holder_binding / kb_jwt_nonce_mismatch", async () => {
    const credential = held.did;
    const { created } = await createRequest(credential.vct, "direct_post");
    const { submitted } = await present(created.authorization_request, credential, {
      responseMode: "direct_post",
      nonce: () => randomBytes(32).toString("base64url"),
    });
    // The wallet's answer is accepted for processing either way; the outcome is in the result.
    expect(submitted.response.status).toBe(200);
    const verified = await result(created.session_id);
    expect(verified.status).toBe("failed");
    expect(verified.check_results).toContainEqual(
      expect.objectContaining({ check: "holder_binding", status: "failed", reason_code: "kb_jwt_nonce_mismatch" }),
    );
    expect(verified).not.toHaveProperty("presentation_metadata");
  });
});
