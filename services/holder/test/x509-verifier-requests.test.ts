import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, startTestHolder, type TestHolder } from "./support/test-holder.js";
import { type RequestOptions, startVerifierDouble, type VerifierDouble } from "./support/verifier-double.js";
import { createTestChain } from "./support/x509-chain.js";

/** Request details need no matching credential: any DCQL query will do. */
const diplomaQuery = () => ({
  credentials: [{ id: "diploma", format: "dc+sd-jwt", meta: { vct_values: ["https://example.test/diploma"] } }],
});

/**
 * The holder as a HAIP wallet: x509_hash and x509_san_dns request objects are accepted only when
 * their x5c chains to the wallet's verifier trust anchors, is valid now, is named by the client_id,
 * and signs the request (ES256). Each refusal says which.
 */
describe("x509_hash / x509_san_dns requests: the verifier's certificate is checked", () => {
  let holder: TestHolder;
  let verifier: VerifierDouble;
  let account: Account;

  beforeAll(async () => {
    holder = await startTestHolder();
    verifier = await startVerifierDouble(holder.ledger);
    account = await holder.account();
  });
  afterAll(async () => {
    await verifier.close();
    await holder.close();
  });

  const details = async (options: Omit<RequestOptions, "dcqlQuery">) => {
    const request = verifier.createRequest({ dcqlQuery: diplomaQuery(), ...options });
    const response = await holder.app.inject({
      method: "POST",
      url: "/v1/oid4vp/request-details",
      headers: account.headers,
      payload: { authorization_request_uri: request.link },
    });
    return { request, response };
  };

  it.each(["x509_hash", "x509_san_dns"] as const)("accepts %s with a chain to a trusted root", async (kind) => {
    const { request, response } = await details({ clientIdKind: kind });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().client_id).toBe(request.clientId);
  });

  it("refuses a chain to a root the wallet does not trust", async () => {
    const untrusted = await createTestChain("rogue", { dnsNames: ["localhost"], ownRoot: true });
    for (const clientIdKind of ["x509_hash", "x509_san_dns"] as const) {
      const { response } = await details({ clientIdKind, x509Chain: untrusted });
      expect([response.statusCode, response.json()]).toEqual([
        400,
        {
          error: "invalid_authorization_request",
          message:
            "verifier certificate (untrusted_certificate_chain): the x5c chain does not lead to a trusted anchor",
        },
      ]);
    }
  });

  it("refuses an expired verifier certificate", async () => {
    const expired = await createTestChain("expired", {
      dnsNames: ["localhost"],
      leafNotAfter: new Date(Date.now() - 60_000),
    });
    const { response } = await details({ clientIdKind: "x509_hash", x509Chain: expired });
    expect(response.json()).toEqual({
      error: "invalid_authorization_request",
      message: "verifier certificate (certificate_expired): the leaf certificate has expired",
    });
  });

  it("refuses another certificate's hash (a trusted leaf the client_id does not name)", async () => {
    const { response } = await details({ clientIdKind: "x509_hash", x509Fault: "other_leaf" });
    expect(response.json()).toEqual({
      error: "invalid_authorization_request",
      message: "the x5c leaf certificate does not match the x509_hash client_id",
    });
  });

  it("refuses a SAN that does not name the x509_san_dns host", async () => {
    const elsewhere = await createTestChain("elsewhere", { dnsNames: ["verifier.elsewhere.example"] });
    const { response } = await details({ clientIdKind: "x509_san_dns", x509Chain: elsewhere });
    expect(response.json()).toEqual({
      error: "invalid_authorization_request",
      message: "the x5c leaf certificate has no DNS name equal to the x509_san_dns client_id",
    });
  });

  it("refuses an unsigned request object claiming an x509 client_id", async () => {
    for (const clientIdKind of ["x509_hash", "x509_san_dns"] as const) {
      const { response } = await details({ clientIdKind, x509Fault: "unsigned" });
      expect([response.statusCode, response.json()]).toEqual([
        400,
        { error: "invalid_authorization_request", message: "the request object is not a compact JWS" },
      ]);
    }
    const byValue = await holder.app.inject({
      method: "POST",
      url: "/v1/oid4vp/request-details",
      headers: account.headers,
      payload: {
        authorization_request_uri: "openid4vp://?client_id=x509_hash%3Aabc&response_type=vp_token&nonce=n",
      },
    });
    expect(byValue.json()).toEqual({
      error: "invalid_authorization_request",
      message:
        "the authorization request link has neither request_uri nor request (unsigned requests are not accepted)",
    });
  });
});
