import { createServer } from "node:net";
import { tokenStatusV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { testCredentialSigner } from "@attesto/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessTokenStatus } from "../src/clients/token-status.client.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import { didIssuer, diplomaRequest, ed25519Key, p256Key, postCredential, redeemedOffer } from "./support/wallet.js";

/**
 * POST /credential, step 4: `revocable` access tokens (authorization-code flow) are looked up at
 * the authorization server's TokenStatusService (a double here; the real one in
 * test/browser/openid4vci-authorization-code.test.ts); a revoked one is 401 invalid_token, an
 * unreachable authorization server 503, and tokens without the mark never cause a lookup.
 */
describe("POST /credential: revoked access tokens", () => {
  let issuer: TestIssuer;
  let offerId: string;
  const holder = p256Key();

  beforeAll(async () => {
    issuer = await startTestIssuer();
    const issuerKey = ed25519Key();
    ({ offerId } = await redeemedOffer(issuer, didIssuer(issuerKey)));
  });
  afterAll(async () => {
    await issuer.close();
  });

  const body = () => diplomaRequest(issuer, [holder]);
  const tokenWith = (jti: string, claims: Record<string, unknown> = {}) =>
    issuer.accessToken({ offerId, claims: { jti, client_id: "wallet-1", revocable: true, ...claims } });
  const request = async (token: string) => {
    const response = await postCredential(issuer, { token, body: await body() });
    return {
      status: response.statusCode,
      body: response.json(),
      wwwAuthenticate: response.headers["www-authenticate"],
    };
  };

  it("issues for a revocable token the authorization server has not revoked (after asking it)", async () => {
    const jti = "jti-active";
    const response = await request(await tokenWith(jti));
    expect(response.status).toBe(200);
    expect(issuer.doubles.tokenStatus.lookups).toContain(jti);
  });

  it("401 invalid_token for a revoked token", async () => {
    const jti = "jti-revoked";
    issuer.doubles.tokenStatus.revoked.add(jti);
    const description = "access token has been revoked";
    expect(await request(await tokenWith(jti))).toEqual({
      status: 401,
      body: { error: "invalid_token", error_description: description },
      wwwAuthenticate: `Bearer error="invalid_token", error_description="${description}"`,
    });
  });

  it("does not ask about tokens that cannot be revoked early (pre-authorized flow)", async () => {
    const jti = "jti-pre-authorized";
    issuer.doubles.tokenStatus.revoked.add(jti); // even if it were listed: no lookup, no refusal
    const response = await request(await issuer.accessToken({ offerId, claims: { jti } }));
    expect(response.status).toBe(200);
    expect(issuer.doubles.tokenStatus.lookups).not.toContain(jti);
  });

  it("503 temporarily_unavailable, never a credential, while the authorization server is down", async () => {
    issuer.doubles.tokenStatus.available = false;
    try {
      expect(await request(await tokenWith("jti-during-outage"))).toMatchObject({
        status: 503,
        body: { error: "temporarily_unavailable" },
      });
    } finally {
      issuer.doubles.tokenStatus.available = true;
    }
  });

  it("maps a real connection failure (nothing listening) to 503", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const status = createAccessTokenStatus(
      createRpcClient(tokenStatusV1.TokenStatusService, {
        baseUrl: `http://127.0.0.1:${port}`,
        audience: "auth-server",
        signer: testCredentialSigner("credential-issuer"),
        timeoutMs: 2_000,
        retries: 0,
      }),
    );
    await expect(status.isRevoked("any")).rejects.toMatchObject({ status: 503, code: "temporarily_unavailable" });
  });
});
