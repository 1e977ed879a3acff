import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import {
  diplomaRequest,
  dpopProof,
  p256Key,
  postCredential,
  postCredentialWithDpop,
  redeemedOffer,
  thumbprintOf,
} from "./support/wallet.js";

/**
 * CREDENTIAL_DPOP_NONCE_STATUS=400: /credential's DPoP errors keep the interface table's 400 for
 * clients built against it; challenge, nonce header and body stay what RFC 9449 says.
 */
describe("CREDENTIAL_DPOP_NONCE_STATUS", () => {
  let issuer: TestIssuer;
  const dpopKey = p256Key();
  const holder = p256Key();

  beforeAll(async () => {
    issuer = await startTestIssuer({ CREDENTIAL_DPOP_NONCE_STATUS: "400" });
  });
  afterAll(async () => {
    await issuer.close();
  });

  const boundToken = async () => {
    const { offerId } = await redeemedOffer(issuer);
    return issuer.accessToken({ offerId, dpopRequired: true, jkt: await thumbprintOf(dpopKey) });
  };
  const body = () => diplomaRequest(issuer, [holder]);

  it("answers the nonce challenge and a bad proof with 400, the same challenge and headers", async () => {
    const token = await boundToken();
    const challenge = await postCredential(issuer, {
      token,
      scheme: "DPoP",
      dpop: await dpopProof({ key: dpopKey, accessToken: token, now: issuer.clock.now }),
      body: await body(),
    });
    expect(challenge.statusCode).toBe(400);
    expect(challenge.json().error).toBe("use_dpop_nonce");
    expect(challenge.headers["www-authenticate"]).toMatch(
      /^DPoP error="use_dpop_nonce", error_description="[^"]+", algs="ES256 EdDSA"$/,
    );
    expect(challenge.headers["dpop-nonce"]).toMatch(/^[A-Za-z0-9._-]+$/);

    const missing = await postCredential(issuer, { token, scheme: "DPoP", body: await body() });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ error: "invalid_dpop_proof", error_description: "DPoP proof is missing" });
    expect(missing.headers["www-authenticate"]).toBe(
      'DPoP error="invalid_dpop_proof", error_description="DPoP proof is missing", algs="ES256 EdDSA"',
    );
  });

  it("still issues after the nonce exchange", async () => {
    const token = await boundToken();
    const response = await postCredentialWithDpop(issuer, { token, key: dpopKey, body: await body() });
    expect(response.statusCode).toBe(200);
  });
});
