import { didKeyFromPublicJwk, ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAuthorizationCodeFlow } from "../hostile/support/authorization-code.js";
import {
  applyTenant,
  BADGE_CLAIMS,
  BADGE_CONFIG,
  createOffer,
  createOrganizationDid,
  expectStatus,
  issueCredential,
  logIn,
  openSession,
  PASSWORD,
  presentation,
  submitPresentation,
  type Tenant,
  verificationResult,
} from "../hostile/support/flows.js";
import { http, postJson } from "../hostile/support/http.js";
import { startTestPlatform, type TestPlatform } from "../hostile/support/platform.js";
import { ContractChecker, fetchDocuments } from "./support/contract-check.js";
import { driveTheRest } from "./support/drive-the-rest.js";
import { type ExchangeRecorder, recordExchanges } from "./support/exchange-recorder.js";

/**
 * The contract test: the platform's real requests and responses, from the flows the e2e and hostile
 * suites drive (issuance on both signing paths, status changes, verification, holder accounts,
 * registries, and the refusals of bad input), replayed against the OpenAPI documents the services
 * serve. An exchange on an undocumented operation or status, or whose body does not match its
 * documented schema, fails the test with one line per mismatch; so does a documented operation that
 * no exchange reached.
 */
const PORT_OFFSET = 12_400;

describe("contract: real exchanges against the served OpenAPI documents", () => {
  let platform: TestPlatform;
  let recorder: ExchangeRecorder;
  let tenant: Tenant;
  const urls = () => Object.values(platform.url);

  beforeAll(async () => {
    platform = await startTestPlatform({ portOffset: PORT_OFFSET, label: "contract" });
    recorder = recordExchanges(urls());
    tenant = await applyTenant(platform.url);
  });

  afterAll(async () => {
    recorder?.stop();
    await platform?.close();
  });

  it("drives the flows", async () => {
    const { url } = platform;
    const apiKey = { "x-api-key": tenant.apiKey };
    const loginToken = await logIn(url, tenant);
    const organizationDid = await createOrganizationDid(url, loginToken);

    // Issuance on both signing paths, the credential's status changed, a verification.
    const onDid = await issueCredential(url, tenant);
    await issueCredential(url, tenant, { x509: true });
    const listed = expectStatus(await http(`${url.issuer}/v1/credentials`, { headers: apiKey }), 200, "list");
    const [first] = (listed.json as { credentials: Array<{ id: string }> }).credentials;
    const patch = (body: unknown) =>
      http(`${url.issuer}/v1/credentials/${first?.id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json", ...apiKey },
        body: JSON.stringify(body),
      });
    expectStatus(await patch({ status: "suspended" }), 200, "PATCH suspended");
    expectStatus(await patch({ status: "active" }), 200, "PATCH active");
    const session = await openSession(url, tenant.apiKey);
    expectStatus(await submitPresentation(url, session, await presentation(onDid, session)), 200, "presentation");
    expectStatus(await verificationResult(url, tenant.apiKey, session.session_id), 200, "result");
    await http(`${url.issuer}/.well-known/openid-credential-issuer/${tenant.tenant}`);
    await http(`${url.issuer}/.well-known/jwt-vc-issuer/${tenant.tenant}`);
    await http(`${url.auth}/.well-known/oauth-authorization-server`);
    await http(`${url.schema}/schemas?limit=5`);

    // Holder accounts.
    const user = await postJson(`${url.holder}/v1/user/register`, { password: PASSWORD });
    const uuid = (user.json as { uuid: string }).uuid;
    const holderLogin = expectStatus(
      await postJson(`${url.holder}/v1/user/login`, { uuid, password: PASSWORD }),
      200,
      "holder login",
    );

    // The authorization code flow (PAR, consent pages, token, credential) and the public link pages.
    await runAuthorizationCodeFlow(url, tenant);
    const offer = await createOffer(url, tenant.apiKey);
    for (const part of ["", "/qr.svg", "/page", "/status"]) await http(`${offer.credential_offer_uri}${part}`);
    const linked = await openSession(url, tenant.apiKey);
    for (const part of ["/qr.svg", "/page", "/status"]) await http(`${linked.request_uri}${part}`);

    // The holder as a wallet: receive from the issuer, present to the verifier.
    const asHolder = { authorization: `Bearer ${(holderLogin.json as { access_token: string }).access_token}` };
    const holderJwk = generateEd25519Jwk();
    const holderDid = didKeyFromPublicJwk(ed25519PublicJwk(holderJwk));
    const toReceive = await createOffer(url, tenant.apiKey);
    await postJson(`${url.holder}/v1/oid4vci/offer-details`, { credential_offer_uri: toReceive.deep_link }, asHolder);
    const received = expectStatus(
      await postJson(
        `${url.holder}/v1/oid4vci/receive`,
        { credential_offer_uri: toReceive.deep_link, holder_did: holderDid, private_key: holderJwk.d },
        asHolder,
      ),
      201,
      "holder receive",
    );
    await http(`${url.holder}/v1/vc`, { headers: asHolder });
    const verifierJwk = generateEd25519Jwk();
    const holderSession = await openSession(url, tenant.apiKey, {
      body: {
        verifier_private_key: verifierJwk.d,
        verifier_client_id: didKeyFromPublicJwk(ed25519PublicJwk(verifierJwk)),
      },
    });
    await postJson(
      `${url.holder}/v1/oid4vp/request-details`,
      { authorization_request_uri: holderSession.authorization_request },
      asHolder,
    );
    expectStatus(
      await postJson(
        `${url.holder}/v1/oid4vp/presentation`,
        {
          authorization_request_uri: holderSession.authorization_request,
          selected_credentials: [
            { credential_id: (received.json as { credential_id: string }).credential_id, query_id: "badge" },
          ],
          holder_did: holderDid,
          private_key: holderJwk.d,
        },
        asHolder,
      ),
      200,
      "holder presentation",
    );
    await http(`${url.holder}/v1/vc`);

    // Public documents: trust anchors, DID configuration, schemas, the ledger, a status list.
    await http(`${url.trust}/v1/x509/trust-anchors`);
    await http(`${url.trust}/v1/x509/trust-anchors.pem`);
    await http(`${url.trust}/.well-known/did-configuration.json/${tenant.tenant}`);
    await http(`${url.schema}/schemas/employee-badge/v1`);
    await http(`${url.schema}/v1/schemas/employee-badge/v1`);
    await http(`${url.ledger}/checkpoints/latest`);
    await http(`${url.ledger}/1.0/identifiers/${encodeURIComponent(organizationDid.did)}`);
    const statusUri = (
      decodeJwt(onDid.credential.split("~")[0] as string) as { status?: { status_list?: { uri?: string } } }
    ).status?.status_list?.uri;
    if (statusUri) await http(statusUri);
    expectStatus(await http(`${url.holder}/v1/did`, { headers: asHolder }), 200, "holder DIDs");
    const stored = (received.json as { credential_id: string }).credential_id;
    expectStatus(await http(`${url.holder}/v1/vc/${stored}`, { headers: asHolder }), 200, "holder credential");
    await http(`${url.issuer}/v1/nonce`, { method: "POST" });

    // Health and readiness of every port, the issuer's record of a credential, its landing pages.
    for (const base of urls()) {
      await http(`${base}/health`);
      await http(`${base}/ready`);
    }
    await http(`${url.issuer}/v1/credentials/${first?.id}`, { headers: apiKey });
    await http(`${url.issuer}/${tenant.tenant}`);
    await http(`${url.issuer}/${tenant.tenant}/.well-known/openid-credential-issuer`);
    // The verifier's Digital Credentials API assets and a request object fetched with a wallet nonce.
    for (const asset of ["dc-api.js", "dc-api/demo", "dc-api/demo.js", "dc-api/demo.css"]) {
      await http(`${url.verifier}/v1/verifier/${asset}`);
    }
    const nonced = await openSession(url, tenant.apiKey);
    await http(nonced.request_uri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "wallet_nonce=contract-nonce",
    });
    // The holder's own DIDs and credentials, made and deleted.
    const made = expectStatus(
      await postJson(`${url.holder}/v1/did`, { method: "LEDGER" }, asHolder),
      201,
      "holder DID",
    );
    await http(`${url.holder}/v1/did/${encodeURIComponent((made.json as { did: string }).did)}`, {
      method: "DELETE",
      headers: asHolder,
    });
    await http(`${url.holder}/v1/vc/${stored}`, { method: "DELETE", headers: asHolder });

    // The operations the flows above do not reach: driven here, each with the answer it gives.
    await driveTheRest(url, tenant, { asHolder, loginToken, holderDid, holderKey: holderJwk.d as string });

    // Refusals: each is an exchange the documents must describe too.
    await postJson(`${url.issuer}/v1/offers`, {}, {});
    await postJson(
      `${url.issuer}/v1/offers`,
      { credential: { config_id: BADGE_CONFIG, claims: { ...BADGE_CLAIMS, given_name: 7 } }, flow: "pre-authorized" },
      apiKey,
    );
    await patch({ status: "deleted" });
    await http(`${url.issuer}/v1/credentials/00000000-0000-4000-8000-000000000000`, {
      method: "PATCH",
      headers: { "content-type": "application/json", ...apiKey },
      body: JSON.stringify({ status: "revoked" }),
    });
    await http(`${url.issuer}/v1/offers/00000000-0000-4000-8000-000000000000`);
    await postJson(`${url.verifier}/v1/verifier/authorization-request`, { dcql_query: {} }, apiKey);
    await http(`${url.verifier}/v1/verifier/result/not-a-session`, { headers: apiKey });
    await postJson(`${url.issuer}/credential`, { credential_configuration_id: BADGE_CONFIG });
    await postJson(`${url.trust}/v1/apply`, { name: "" });
    await postJson(`${url.holder}/v1/user/login`, { uuid, password: "Wrong-Passw0rd" });
  });

  it("every exchange keeps the contract of its document", async () => {
    await recorder.settled();
    const exchanges = recorder.exchanges.filter((exchange) => exchange.url.pathname !== "/openapi.json");
    expect(exchanges.length).toBeGreaterThan(30);
    const checker = new ContractChecker(await fetchDocuments(urls()));
    const mismatches = [...new Set(exchanges.flatMap((exchange) => checker.check(exchange)))];
    expect(mismatches).toEqual([]);
    // Every documented operation of every public port is reached by at least one exchange.
    expect(checker.operationsNotReached(exchanges)).toEqual([]);
  });
});
