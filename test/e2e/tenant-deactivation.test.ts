/**
 * Tenant deactivation over the real platform (issue #30): an X.509-signing tenant issues a
 * credential, leaves one offer unredeemed and one access token unspent; then the platform deletes
 * it (TenantService.DeleteTenant, as the operator calls it over the internal port). From then on
 * it issues nothing (token 400 invalid_grant, /credential 400 credential_request_denied, offer
 * document 410, metadata 404) and is trusted by no verifier (issuer_trust `issuer_deactivated`,
 * the session `failed`), while its status list stays served for the credentials already out.
 */
import { tenantV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { testCredentialSigner } from "@attesto/runtime/testing";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CreatedOffer,
  createOffer,
  fetchNonce,
  fetchOffer,
  getToken,
  type Issued,
  issueCredential,
  keyProof,
  p256Key,
  postCredential,
  presentForVerification,
  redeemCode,
  type TokenResult,
} from "../hostile/support/flows.js";
import { http } from "../hostile/support/http.js";
import { type PlatformUrls, urlsFor } from "../hostile/support/platform.js";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { applyTenant, type Tenant } from "../interop/support/tenant.js";

/** Ports 18131..18138 / 19131..19138. */
const PORT_OFFSET = 10_050;

describe("a deleted tenant stops issuing and stops being trusted (real services)", () => {
  let platform: InteropPlatform;
  let urls: PlatformUrls;
  let issuer: Tenant;
  let verifier: Tenant;
  let issued: Issued;
  let unredeemed: { offer: CreatedOffer; code: string; document: { credential_issuer: string } };
  let unspent: { token: TokenResult; configurationId: string; audience: string };

  /** The issued credential presented to the other (active) tenant's verifier: the session's status and checks. */
  const presentToVerifier = () => presentForVerification(urls, verifier.apiKey, issued);

  beforeAll(async () => {
    platform = await startInteropPlatform({ portOffset: PORT_OFFSET, label: "deactivation" });
    // The holder and the scheduler are not started; their URLs still point into this platform's range.
    urls = {
      ...urlsFor(PORT_OFFSET),
      auth: platform.url("auth-server"),
      issuer: platform.url("credential-issuer"),
      verifier: platform.url("verifier"),
      trust: platform.url("trust-registry"),
      schema: platform.url("schema-registry"),
      ledger: platform.url("ledger"),
    };
    issuer = await applyTenant(platform, "leaving");
    verifier = await applyTenant(platform, "staying");

    // Before the deletion: one credential issued, one offer not redeemed, one token not spent.
    issued = await issueCredential(urls, issuer, { x509: true });
    const second = await createOffer(urls, issuer.apiKey);
    unredeemed = { offer: second, ...(await fetchOffer(second)) };
    const third = await fetchOffer(await createOffer(urls, issuer.apiKey));
    unspent = {
      token: await getToken(urls, third.code, p256Key()),
      configurationId: third.document.credential_configuration_ids[0]!,
      audience: third.document.credential_issuer,
    };
    // While the tenant is active its credential verifies and its metadata is served: what fails below is the deletion's doing.
    expect(await presentToVerifier()).toMatchObject({ status: "completed" });
    expect((await http(`${urls.issuer}/.well-known/openid-credential-issuer/${issuer.tenant}`)).status).toBe(200);

    const tenants = createRpcClient(tenantV1.TenantService, {
      baseUrl: platform.internalUrl("trust-registry"),
      audience: "trust-registry",
      signer: testCredentialSigner("operator"),
      timeoutMs: 10_000,
    });
    const deleted = await tenants.deleteTenant({ tenant: issuer.tenant });
    expect(deleted).toMatchObject({ found: true, deactivated: true });
  }, 180_000);

  afterAll(async () => {
    await platform?.close();
  });

  it("the unredeemed offer's pre-authorized code answers 400 invalid_grant", async () => {
    const result = await redeemCode(urls, unredeemed.code, { dpopKey: p256Key() });
    expect(result.status).toBe(400);
    expect((result.json as { error: string }).error).toBe("invalid_grant");
  });

  it("a token obtained before the deletion is refused at /credential with credential_request_denied", async () => {
    const holder = p256Key();
    const proof = await keyProof({ key: holder, nonce: await fetchNonce(urls), audience: unspent.audience });
    const result = await postCredential(urls, unspent.token, {
      credential_configuration_id: unspent.configurationId,
      proofs: { jwt: [proof] },
    });
    expect(result.status).toBe(400);
    expect((result.json as { error: string }).error).toBe("credential_request_denied");
  });

  it("the offer document answers 410 and the tenant's metadata 404", async () => {
    expect((await http(unredeemed.offer.credential_offer_uri)).status).toBe(410);
    const metadata = await http(`${urls.issuer}/.well-known/openid-credential-issuer/${issuer.tenant}`);
    expect(metadata.status).toBe(404);
    expect(metadata.text).toContain("Tenant not found");
  });

  it("another tenant's verifier fails the credential already issued on issuer_trust (issuer_deactivated)", async () => {
    const { status, checks } = await presentToVerifier();
    expect(status).toBe("failed");
    expect(checks).toContain("issuer_signature success valid");
    expect(checks).toContain("issuer_trust failed issuer_deactivated");
  });

  it("the tenant's status list is still served", async () => {
    const { status } = decodeJwt(issued.credential.split("~")[0]!) as { status: { status_list: { uri: string } } };
    const uri = new URL(status.status_list.uri);
    expect(uri.pathname.startsWith(`/status-lists/${issuer.tenant}/`)).toBe(true);
    const list = await http(uri.href, { headers: { accept: "application/statuslist+jwt" } });
    expect(list.status).toBe(200);
    expect(list.headers.get("content-type")).toMatch(/^application\/statuslist\+jwt/);
  });
});
