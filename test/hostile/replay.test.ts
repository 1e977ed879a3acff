import { createDemoClientAttestationHeaders } from "@attesto/auth-server";
import { createPkce } from "@attesto/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyTenant,
  createOffer,
  didKeyIssuer,
  dpopProof,
  fetchNonce,
  fetchOffer,
  getToken,
  type HolderKey,
  issueCredential,
  keyProof,
  openSession,
  PRE_AUTHORIZED_GRANT,
  p256Key,
  postCredential,
  presentation,
  redeemCode,
  submitPresentation,
  type Tenant,
  type TokenResult,
  verificationResult,
  withDpopNonce,
} from "./support/flows.js";
import { expectRefused, http, postForm } from "./support/http.js";
import { startTestPlatform, type TestPlatform } from "./support/platform.js";

/**
 * Replay (the credential-issuer README and the auth-server README and the verifier README, RFC 9126): every single-use value is refused the second time,
 * also when the two uses race each other.
 */
const PORT_OFFSET = 22_050;

describe("replay", () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  let issuerId: string;

  const freshCode = async (signing = true) => {
    const offer = await createOffer(platform.url, tenant.apiKey, signing ? { signing: didKeyIssuer() } : {});
    return (await fetchOffer(offer)).code;
  };
  const credentialBody = (proof: string) => ({
    credential_configuration_id: "employee-badge",
    proofs: { jwt: [proof] },
  });

  beforeAll(async () => {
    platform = await startTestPlatform({ portOffset: PORT_OFFSET, label: "hostile_rp" });
    tenant = await applyTenant(platform.url);
    issuerId = `${platform.url.issuer}/${tenant.tenant}`;
  });
  afterAll(async () => {
    await platform?.close();
  });

  describe("pre-authorized codes", () => {
    it("a redeemed code is invalid_grant the second time", async () => {
      const code = await freshCode();
      expect((await redeemCode(platform.url, code)).status).toBe(200);
      const again = await redeemCode(platform.url, code);
      expectRefused(again, "oauth", { statuses: [400], code: "invalid_grant" });
      expect((again.json as { error_description: string }).error_description).toMatch(/already been used/);
    });

    it("twelve concurrent redemptions of one code yield exactly one token", async () => {
      const code = await freshCode(false);
      const results = await Promise.all(
        Array.from({ length: 12 }, () => redeemCode(platform.url, code, { dpopKey: p256Key() })),
      );
      const ok = results.filter((result) => result.status === 200);
      expect(ok).toHaveLength(1);
      for (const result of results.filter((r) => r.status !== 200)) {
        expectRefused(result, "oauth", { statuses: [400], code: "invalid_grant" });
      }
    });
  });

  describe("c_nonces and key proofs", () => {
    let token: TokenResult;
    beforeAll(async () => {
      token = await getToken(platform.url, await freshCode());
    });

    it("a proof's c_nonce is spent once: the same proof, and a new proof with the same nonce, are invalid_proof", async () => {
      const holder = p256Key();
      const nonce = await fetchNonce(platform.url);
      const proof = await keyProof({ key: holder, nonce, audience: issuerId });
      expect((await postCredential(platform.url, token, credentialBody(proof))).status).toBe(200);
      const sameProof = await postCredential(platform.url, token, credentialBody(proof));
      expectRefused(sameProof, "oauth", { statuses: [400], code: "invalid_proof" });
      const sameNonce = await postCredential(
        platform.url,
        token,
        credentialBody(await keyProof({ key: p256Key(), nonce, audience: issuerId })),
      );
      expectRefused(sameNonce, "oauth", { statuses: [400], code: "invalid_proof" });
      expect((sameNonce.json as { error_description: string }).error_description).toMatch(/already used/);
    });

    it("concurrent credential requests sharing one c_nonce issue exactly one credential", async () => {
      const nonce = await fetchNonce(platform.url);
      const before = await platform.count("credential-issuer", "credentials");
      const results = await Promise.all(
        Array.from({ length: 8 }, async () =>
          postCredential(
            platform.url,
            token,
            credentialBody(await keyProof({ key: p256Key(), nonce, audience: issuerId })),
          ),
        ),
      );
      expect(results.filter((result) => result.status === 200)).toHaveLength(1);
      for (const result of results.filter((r) => r.status !== 200)) {
        expectRefused(result, "oauth", { statuses: [400], code: "invalid_proof" });
      }
      expect(await platform.count("credential-issuer", "credentials")).toBe(before + 1);
    });

    it("a batch that repeats one proof gets one credential per proof but spends the nonce once", async () => {
      const nonce = await fetchNonce(platform.url);
      const proof = await keyProof({ key: p256Key(), nonce, audience: issuerId });
      const result = await postCredential(platform.url, token, {
        credential_configuration_id: "employee-badge",
        proofs: { jwt: [proof, proof] },
      });
      expect([200, 400]).toContain(result.status);
      const after = await postCredential(platform.url, token, credentialBody(proof));
      expectRefused(after, "oauth", { statuses: [400], code: "invalid_proof" });
    });
  });

  describe("DPoP jti", () => {
    it("at the token endpoint: a proof used once is refused for another request (another code)", async () => {
      const key = p256Key();
      const tokenUrl = `${platform.url.auth}/v1/token`;
      let proof = "";
      const first = await withDpopNonce(async (nonce) => {
        proof = await dpopProof({ key, htu: tokenUrl, ...(nonce === undefined ? {} : { nonce }) });
        return postForm(
          tokenUrl,
          { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": await freshCode() },
          { dpop: proof },
        );
      });
      expect(first.status).toBe(200);
      const replayed = await postForm(
        tokenUrl,
        { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": await freshCode() },
        { dpop: proof },
      );
      expectRefused(replayed, "oauth", { statuses: [400], code: "invalid_dpop_proof" });
      expect((replayed.json as { error_description: string }).error_description).toMatch(/jti/);
    });

    it("at the token endpoint: a refused replay does not spend the code", async () => {
      const key = p256Key();
      const tokenUrl = `${platform.url.auth}/v1/token`;
      let proof = "";
      await withDpopNonce(async (nonce) => {
        proof = await dpopProof({ key, htu: tokenUrl, ...(nonce === undefined ? {} : { nonce }) });
        return postForm(
          tokenUrl,
          { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": await freshCode() },
          { dpop: proof },
        );
      });
      const code = await freshCode();
      const replayed = await postForm(
        tokenUrl,
        { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": code },
        { dpop: proof },
      );
      expect(replayed.status).toBe(400);
      expect((await redeemCode(platform.url, code, { dpopKey: key })).status).toBe(200);
    });

    it("at the credential endpoint: the same proof twice is refused the second time", async () => {
      const token = await getToken(platform.url, await freshCode(false), p256Key());
      const key = token.dpopKey as HolderKey;
      const credentialUrl = `${platform.url.issuer}/credential`;
      const send = (dpop: string, proof: string) =>
        http(credentialUrl, {
          method: "POST",
          headers: { authorization: `DPoP ${token.accessToken}`, dpop, "content-type": "application/json" },
          body: JSON.stringify(credentialBody(proof)),
        });
      let dpop = "";
      const first = await withDpopNonce(async (nonce) => {
        dpop = await dpopProof({
          key,
          htu: credentialUrl,
          accessToken: token.accessToken,
          ...(nonce === undefined ? {} : { nonce }),
        });
        return send(
          dpop,
          await keyProof({ key: p256Key(), nonce: await fetchNonce(platform.url), audience: issuerId }),
        );
      });
      expect(first.status).toBe(200);
      const replayed = await send(
        dpop,
        await keyProof({ key: p256Key(), nonce: await fetchNonce(platform.url), audience: issuerId }),
      );
      // The credential endpoint is a resource server: RFC 9449 §7.1 answers a bad proof with 401.
      expectRefused(replayed, "oauth", { statuses: [401], code: "invalid_dpop_proof" });
      expect(replayed.headers.get("www-authenticate")).toMatch(/^DPoP error="invalid_dpop_proof"/);
    });
  });

  describe("presentations", () => {
    it("a second submission to a session is invalid_request and does not change its result", async () => {
      const issued = await issueCredential(platform.url, tenant);
      const session = await openSession(platform.url, tenant.apiKey);
      const vp = await presentation(issued, session);
      expect((await submitPresentation(platform.url, session, vp)).status).toBe(200);
      const before = await verificationResult(platform.url, tenant.apiKey, session.session_id);
      expect((before.json as { status: string }).status).toBe("completed");
      const again = await submitPresentation(platform.url, session, vp);
      expectRefused(again, "oauth", { statuses: [400], code: "invalid_request" });
      const after = await verificationResult(platform.url, tenant.apiKey, session.session_id);
      expect(after.json).toEqual(before.json);
      // The request object is no longer served once the session has its answer.
      expectRefused(await http(session.request_uri), "api", { statuses: [404] });
    });

    it("concurrent submissions to one session: exactly one is accepted", async () => {
      const issued = await issueCredential(platform.url, tenant);
      const session = await openSession(platform.url, tenant.apiKey);
      const vp = await presentation(issued, session);
      const results = await Promise.all(Array.from({ length: 6 }, () => submitPresentation(platform.url, session, vp)));
      expect(results.filter((result) => result.status === 200)).toHaveLength(1);
      for (const result of results.filter((r) => r.status !== 200)) {
        expectRefused(result, "oauth", { statuses: [400], code: "invalid_request" });
      }
    });

    it("a presentation replayed to another session fails its key binding (nonce and audience)", async () => {
      const issued = await issueCredential(platform.url, tenant);
      const first = await openSession(platform.url, tenant.apiKey);
      const vp = await presentation(issued, first);
      expect((await submitPresentation(platform.url, first, vp)).status).toBe(200);
      const second = await openSession(platform.url, tenant.apiKey);
      expect((await submitPresentation(platform.url, second, vp)).status).toBe(200);
      const result = (await verificationResult(platform.url, tenant.apiKey, second.session_id)).json as {
        status: string;
        check_results: Array<{ check: string; status: string }>;
      };
      expect(result.status).toBe("failed");
      expect(result.check_results.find((check) => check.check === "holder_binding")?.status).toBe("failed");
    });
  });

  describe("PAR request_uri", () => {
    it("a pushed request_uri opens the consent page once; the second use is refused", async () => {
      const wallet = { clientId: "replay-wallet", key: p256Key() };
      const pkce = createPkce();
      const offer = await createOffer(platform.url, tenant.apiKey, { body: { flow: "authorization-code" } });
      const document = (await http(offer.credential_offer_uri)).json as {
        grants: { authorization_code: { issuer_state: string } };
      };
      const pushed = await postForm(
        `${platform.url.auth}/v1/par`,
        {
          response_type: "code",
          client_id: wallet.clientId,
          redirect_uri: "https://wallet.example/cb",
          code_challenge: pkce.codeChallenge,
          code_challenge_method: "S256",
          scope: "employee-badge",
          issuer_state: document.grants.authorization_code.issuer_state,
        },
        await createDemoClientAttestationHeaders({
          clientId: wallet.clientId,
          instancePrivateJwk: wallet.key.privateJwk,
          audience: platform.url.auth,
        }),
      );
      expect(pushed.status, pushed.text).toBe(201);
      const requestUri = (pushed.json as { request_uri: string }).request_uri;
      const authorize = () =>
        http(
          `${platform.url.auth}/v1/authorize?${new URLSearchParams({ client_id: wallet.clientId, request_uri: requestUri })}`,
        );
      const first = await authorize();
      expect(first.status, `${first.headers.get("location")} ${first.text.slice(0, 300)}`).toBe(200);
      const second = await authorize();
      expect(second.status).toBe(400);
      expect(second.text).toMatch(/already been used|already used/);
      // Pushing it back as a parameter is refused too (RFC 9126 §2.1).
      const again = await postForm(`${platform.url.auth}/v1/par`, {
        request_uri: requestUri,
        client_id: wallet.clientId,
      });
      expectRefused(again, "oauth", { statuses: [400, 401] });
    });
  });
});
