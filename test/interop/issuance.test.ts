/**
 * Interop, issuance: the OpenWallet Foundation wallet client (@openid4vc/openid4vci over
 * @openid4vc/oauth2) redeems pre-authorized offers on the real platform (every service started by
 * the all-in-one launcher's startPlatform, real HTTP), on both signing paths; each credential is
 * then verified independently with @sd-jwt/sd-jwt-vc, the ledger's public DID resolver and
 * @peculiar/x509.
 */
import { createPublicKey } from "node:crypto";
import { Oauth2Client, Oauth2ClientErrorResponseError } from "@openid4vc/oauth2";
import { Openid4vciRetrieveCredentialsError } from "@openid4vc/openid4vci";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { walletKey } from "./support/keys.js";
import { type InteropPlatform, startInteropPlatform } from "./support/platform.js";
import { decodeSdJwt, MIN_SALT_BYTES, resolveDidKey, validateX5c, verifySdJwtVc } from "./support/sd-jwt.js";
import {
  applyTenant,
  createOffer,
  createOrganizationDid,
  DIPLOMA_CLAIMS,
  type OrganizationDid,
  type Tenant,
} from "./support/tenant.js";
import { InteropWallet, proofSignerOf, receiveCredential } from "./support/wallet.js";

/** Ports 29381..29388 / 30381..30388: see test/interop/support/platform.ts for the offsets in use. */
const PORT_OFFSET = 21_300;

/** Claims an SD-JWT VC carries in the clear: everything else must be selectively disclosable. */
const VISIBLE_CLAIMS = new Set(["iss", "iat", "nbf", "exp", "vct", "vct#integrity", "cnf", "status", "_sd", "_sd_alg"]);

describe("interop: OWF wallet client against the running platform (pre-authorized issuance)", () => {
  let platform: InteropPlatform;
  let tenant: Tenant;
  let did: OrganizationDid;

  beforeAll(async () => {
    platform = await startInteropPlatform({ portOffset: PORT_OFFSET, label: "issuance" });
    tenant = await applyTenant(platform, "interop-issuer");
    did = await createOrganizationDid(platform, tenant);
  });
  afterAll(async () => {
    await platform?.close();
  });

  const issuerIdentifier = () => `${platform.url("credential-issuer")}/${tenant.tenant}`;

  /** What every credential must satisfy, whatever the signing path. */
  async function checkCommonClaims(credential: string, holderJwk: Record<string, unknown>, vct: string) {
    const decoded = decodeSdJwt(credential);
    expect(decoded.header.typ).toBe("dc+sd-jwt");
    expect(decoded.payload).toMatchObject({
      iss: issuerIdentifier(),
      vct,
      _sd_alg: "sha-256",
      cnf: { jwk: holderJwk },
    });
    const { iat, exp } = decoded.payload as { iat: number; exp: number };
    expect(Math.abs(iat - Date.now() / 1000)).toBeLessThan(120);
    expect(exp).toBeGreaterThan(iat);
    // Every claim is selectively disclosable: none of them is in the clear.
    expect(Object.keys(decoded.payload).filter((name) => !VISIBLE_CLAIMS.has(name))).toEqual([]);
    const topLevel = decoded.disclosures.filter((d) => d.value.length === 3).map((d) => d.value[1]);
    expect(topLevel).toEqual(expect.arrayContaining(Object.keys(DIPLOMA_CLAIMS)));
    // Salts: at least 128 bits, never reused.
    const salts = decoded.disclosures.map((d) => String(d.value[0]));
    for (const salt of salts) expect(Buffer.from(salt, "base64url").length).toBeGreaterThanOrEqual(MIN_SALT_BYTES);
    expect(new Set(salts).size).toBe(salts.length);
    return decoded;
  }

  it("DID path: Bearer token, nonce endpoint, did:key proof; EdDSA credential verifiable through the ledger resolver", async () => {
    const offer = await createOffer(platform, tenant, { did });
    const wallet = new InteropWallet();
    const holder = wallet.key("EdDSA");
    const received = await receiveCredential(wallet, offer.deep_link, {
      dpop: false,
      proofKey: holder,
      proofKeyReference: "did:key",
    });

    expect(received.credentialIssuer).toBe(issuerIdentifier());
    expect(received.tokenType).toBe("Bearer");
    expect(wallet.requests).toEqual([
      { method: "GET", path: `/v1/offers/${offer.offer_id}`, status: 200 },
      { method: "GET", path: `/.well-known/openid-credential-issuer/${tenant.tenant}`, status: 200 },
      { method: "GET", path: "/.well-known/oauth-authorization-server", status: 200 },
      { method: "POST", path: "/v1/token", status: 200 },
      { method: "POST", path: "/v1/nonce", status: 200 },
      { method: "POST", path: "/credential", status: 200 },
    ]);

    const configuration = received.issuerMetadata.credentialIssuer.credential_configurations_supported[
      received.credentialConfigurationId
    ] as unknown as { vct: string; format: string };
    expect(configuration.format).toBe("dc+sd-jwt");
    const decoded = await checkCommonClaims(received.credential, holder.publicJwk, configuration.vct);
    expect(decoded.header).toEqual({ typ: "dc+sd-jwt", alg: "EdDSA", kid: did.key_id });

    // The issuer key as anyone can resolve it: the ledger's public DID resolver.
    const resolved = await resolveDidKey(platform.url("ledger"), did.key_id);
    expect(resolved.document.assertionMethod).toContain(did.key_id);
    expect(resolved.key.export({ format: "jwk" })).toMatchObject({
      kty: "OKP",
      crv: "Ed25519",
      x: did.public_key_jwk.x,
    });

    const verified = await verifySdJwtVc(received.credential, resolved.key);
    expect(verified.payload).toMatchObject({ iss: issuerIdentifier(), cnf: { jwk: holder.publicJwk } });
    expect(verified.claims).toMatchObject(DIPLOMA_CLAIMS);
    // The check has teeth: another Ed25519 key does not verify the credential.
    await expect(verifySdJwtVc(received.credential, createPublicKey(walletKey("EdDSA").privateKey))).rejects.toThrow();
  });

  it("X.509 path: DPoP-bound token and credential request (both nonce retries), ES256 credential chaining to the platform anchor", async () => {
    const offer = await createOffer(platform, tenant);
    const wallet = new InteropWallet();
    const holder = wallet.key("ES256");
    const received = await receiveCredential(wallet, offer.deep_link, {
      dpop: true,
      proofKey: holder,
      proofKeyReference: "jwk",
    });

    expect(received.tokenType).toBe("DPoP");
    // The library's own nonce retries, as RFC 9449 has each server ask: 400 use_dpop_nonce at the
    // token endpoint (§8), 401 with a WWW-Authenticate DPoP challenge at the credential endpoint (§9).
    expect(wallet.requests.filter((r) => r.method === "POST")).toEqual([
      { method: "POST", path: "/v1/token", status: 400 },
      { method: "POST", path: "/v1/token", status: 200 },
      { method: "POST", path: "/v1/nonce", status: 200 },
      { method: "POST", path: "/credential", status: 401 },
      { method: "POST", path: "/credential", status: 200 },
    ]);

    const configuration = received.issuerMetadata.credentialIssuer.credential_configurations_supported[
      received.credentialConfigurationId
    ] as unknown as { vct: string };
    const decoded = await checkCommonClaims(received.credential, holder.publicJwk, configuration.vct);
    expect(decoded.header).toMatchObject({ typ: "dc+sd-jwt", alg: "ES256" });
    expect(decoded.header).not.toHaveProperty("kid");
    const x5c = decoded.header.x5c as string[];
    expect(Array.isArray(x5c) && x5c.length).toBeGreaterThanOrEqual(1);

    const anchors = await platform.trustAnchors();
    expect(anchors.length).toBeGreaterThanOrEqual(1);
    const chain = await validateX5c(x5c, anchors);
    expect(chain.leafKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");

    const verified = await verifySdJwtVc(received.credential, chain.leafKey);
    expect(verified.claims).toMatchObject(DIPLOMA_CLAIMS);
    expect(verified.payload).toMatchObject({ cnf: { jwk: holder.publicJwk } });
  });

  it("refuses a replayed pre-authorized code: a second redemption and a racing pair give exactly one token", async () => {
    const wallet = new InteropWallet();
    const oauth2 = new Oauth2Client({ callbacks: wallet.callbacks });
    const authorizationServerMetadata = await oauth2.fetchAuthorizationServerMetadata(platform.url("auth-server"));
    expect(authorizationServerMetadata?.issuer).toBe(platform.url("auth-server"));
    const redeem = async (preAuthorizedCode: string) =>
      oauth2
        .retrievePreAuthorizedCodeAccessToken({
          authorizationServerMetadata: authorizationServerMetadata!,
          preAuthorizedCode,
          resource: issuerIdentifier(),
        })
        .then(
          () => "token",
          (error: unknown) =>
            error instanceof Oauth2ClientErrorResponseError
              ? `${error.response.status} ${error.errorResponse.error}`
              : Promise.reject(error),
        );
    const codeOf = async () => {
      const offer = await createOffer(platform, tenant, { did });
      const document = await wallet.client.resolveCredentialOffer(offer.deep_link);
      const grant = document.grants?.["urn:ietf:params:oauth:grant-type:pre-authorized_code"];
      return grant!["pre-authorized_code"];
    };

    const code = await codeOf();
    expect(await redeem(code)).toBe("token");
    expect(await redeem(code)).toBe("400 invalid_grant");

    const raced = await codeOf();
    const outcomes = await Promise.all([redeem(raced), redeem(raced), redeem(raced)]);
    expect(outcomes.sort()).toEqual(["400 invalid_grant", "400 invalid_grant", "token"]);
  });

  it("refuses a replayed c_nonce: a second proof over a spent nonce is invalid_proof", async () => {
    for (const path of ["did", "x509"] as const) {
      const offer = await createOffer(platform, tenant, path === "did" ? { did } : {});
      const wallet = new InteropWallet();
      const holder = wallet.key("ES256");
      const received = await receiveCredential(wallet, offer.deep_link, {
        dpop: path === "x509",
        proofKey: holder,
        proofKeyReference: "jwk",
      });
      // Same token, a new proof (another key) over the c_nonce the first request spent.
      const { jwt } = await wallet.client.createCredentialRequestJwtProof({
        issuerMetadata: received.issuerMetadata,
        credentialConfigurationId: received.credentialConfigurationId,
        signer: proofSignerOf(wallet.key("ES256"), "jwk"),
        nonce: received.cNonce,
      });
      const replay = wallet.client.retrieveCredentials({
        issuerMetadata: received.issuerMetadata,
        accessToken: received.accessToken,
        credentialConfigurationId: received.credentialConfigurationId,
        proofs: { jwt: [jwt] },
        ...(received.dpop ? { dpop: received.dpop } : {}),
      });
      const error = await replay.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, path).toBeInstanceOf(Openid4vciRetrieveCredentialsError);
      const { response } = error as Openid4vciRetrieveCredentialsError;
      expect({ path, status: response.response.status, body: response.credentialErrorResponseResult?.data }).toEqual({
        path,
        status: 400,
        body: expect.objectContaining({ error: "invalid_proof" }),
      });
    }
  });
});
