import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tenantV1 } from "@attesto/proto";
import { didKeyFromPublicJwk, ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import { createRpcClient } from "@attesto/runtime/rpc";
import { testCredentialSigner, testServiceIdentityEnv } from "@attesto/runtime/testing";
import { openDatabase } from "@attesto/store";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type LauncherProcess, startLauncher } from "../e2e/support/launcher.js";
import { runAuthorizationCodeFlow } from "./support/authorization-code.js";
import {
  applyTenant,
  createOffer,
  createOrganizationDid,
  didKeyIssuer,
  expectStatus,
  fetchNonce,
  fetchOffer,
  getToken,
  type HolderKey,
  keyProof,
  logIn,
  openSession,
  PASSWORD,
  p256Key,
  postCredential,
  presentation,
  submitPresentation,
  type Tenant,
  verificationResult,
} from "./support/flows.js";
import { http, postJson } from "./support/http.js";
import { SERVICE_NAMES, SERVICE_PORTS, urlsFor } from "./support/platform.js";

/**
 * No secret reaches the log. The real launcher (`npm start`'s entry point, a child process) runs
 * at LOG_LEVEL=debug while every flow runs against it: tenant sign-up and login, an organization
 * DID, issuance on both signing paths (X.509 with DPoP, DID with a Bearer token), the
 * authorization-code flow (PAR, consent page, code exchange), a token sent in the query string,
 * verification, a holder receiving (notarized, which sends a webhook) and presenting, and webhooks
 * with their signing secret. Every secret those flows handled (API key, passwords, login and
 * access tokens, pre-authorized and authorization codes, PKCE verifier, request_uri, CSRF token and
 * session cookie, c_nonces and DPoP nonces, private keys, the webhook secret, the launcher's own
 * secrets) is then searched for in the whole captured log, and none is found. A hostile
 * X-Request-Id is neither echoed nor logged.
 */
const PORT_OFFSET = 22_090;
const urls = urlsFor(PORT_OFFSET);
/** Every identity's private key (`<PREFIX>_SERVICE_IDENTITY_KEY`): the test speaks as the operator. */
const IDENTITY_KEYS = testServiceIdentityEnv();
const HOSTILE_REQUEST_ID = '<script>alert(1)</script>" injected=1';

const run = randomBytes(4).toString("hex");
const schemaOf = (service: string) => `logs_${run}_${service.replace(/-/g, "_")}`;
const prefixOf = (service: string) => service.toUpperCase().replace(/-/g, "_");

describe("no secrets in logs (every flow at LOG_LEVEL=debug)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "attesto-logs-"));
  const databaseUrl = process.env.DATABASE_URL || undefined;
  let launcher: LauncherProcess;
  let receiver: Server;
  const deliveries: Array<{ signature: string; body: string }> = [];
  /** label -> secret value */
  const secrets = new Map<string, string>();
  const remember = (label: string, value: string | null | undefined) => {
    if (typeof value === "string" && value.length >= 6) secrets.set(label, value);
  };
  const rememberKey = (label: string, key: HolderKey) => remember(`${label} private key (d)`, key.privateJwk.d);

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        deliveries.push({ signature: String(req.headers["attesto-signature"] ?? ""), body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const receiverPort = (receiver.address() as AddressInfo).port;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT_OFFSET: String(PORT_OFFSET),
      ATTESTO_DATA_DIR: dataDir,
      LOG_LEVEL: "debug",
      ...IDENTITY_KEYS,
      // The webhook receiver of this test is an internal address the operator allows explicitly.
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${receiverPort}`,
      SCHEDULER_NOTARY_BATCH_INTERVAL_MS: "200",
      SCHEDULER_WEBHOOK_CONFIG_CACHE_MS: "0",
    };
    delete env.DATABASE_URL;
    if (databaseUrl) {
      env.DATABASE_URL = databaseUrl;
      for (const name of SERVICE_NAMES) env[`${prefixOf(name)}_DATABASE_SCHEMA`] = schemaOf(name);
      env.SCHEDULER_JOB_QUEUE_SCHEMA = schemaOf("boss");
    }
    launcher = await startLauncher({ env, readyTimeoutMs: 150_000, maxOutputChars: 200_000_000 });
    for (const [variable, jwk] of Object.entries(IDENTITY_KEYS)) remember(variable, JSON.parse(jwk).d);
  }, 180_000);

  afterAll(async () => {
    await launcher?.stop("SIGTERM", 20_000).catch(() => {});
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) {
      const database = openDatabase({ url: databaseUrl, schema: "public", poolMax: 1 });
      for (const name of [...SERVICE_NAMES, "boss"]) {
        await database.pool.query(`DROP SCHEMA IF EXISTS "${schemaOf(name)}" CASCADE`).catch(() => {});
      }
      await database.close();
    }
  });

  let tenant: Tenant;

  it("runs every flow against the platform", async () => {
    // Tenant, login, organization DID.
    tenant = await applyTenant(urls);
    remember("tenant API key", tenant.apiKey);
    remember("tenant password", PASSWORD);
    const loginToken = await logIn(urls, tenant);
    remember("organization login token", loginToken);
    const organizationDid = await createOrganizationDid(urls, loginToken);
    remember("organization DID private key", organizationDid.private_key);

    // Webhooks (set by the operator over the internal API): the signing secret is generated here.
    const registry = createRpcClient(tenantV1.TenantService, {
      baseUrl: `http://localhost:${9085 + PORT_OFFSET}`,
      audience: "trust-registry",
      signer: testCredentialSigner("operator"),
      timeoutMs: 10_000,
    });
    const receiverPort = (receiver.address() as AddressInfo).port;
    const { generatedSecret } = await registry.setWebhooks({
      tenant: tenant.tenant,
      webhooks: [{ url: `http://127.0.0.1:${receiverPort}/hooks?token=webhook-url-secret-${run}`, events: [] }],
    });
    remember("webhook signing secret", generatedSecret);
    remember("webhook URL query token", `webhook-url-secret-${run}`);

    // Pre-authorized issuance, X.509 path (DPoP-bound token).
    {
      const offer = await createOffer(urls, tenant.apiKey);
      const { code, document } = await fetchOffer(offer);
      remember("pre-authorized code (X.509)", code);
      const dpopKey = p256Key();
      rememberKey("DPoP key (X.509)", dpopKey);
      const token = await getToken(urls, code, dpopKey);
      remember("access token (X.509)", token.accessToken);
      remember("DPoP nonce of the token endpoint", token.dpopNonce);
      const holder = p256Key();
      rememberKey("holder key (X.509)", holder);
      const cNonce = await fetchNonce(urls);
      remember("c_nonce (X.509)", cNonce);
      const proof = await keyProof({ key: holder, nonce: cNonce, audience: document.credential_issuer });
      const issued = await postCredential(urls, token, {
        credential_configuration_id: document.credential_configuration_ids[0],
        proofs: { jwt: [proof] },
      });
      expectStatus(issued, 200, "POST /credential (X.509)");
      remember("DPoP nonce of the credential endpoint", issued.headers.get("dpop-nonce"));
      // A token in the query string is refused, and must not be logged either.
      const inQuery = await http(`${urls.issuer}/credential?access_token=${encodeURIComponent(token.accessToken)}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(inQuery.status).toBeGreaterThanOrEqual(400);
    }

    // Pre-authorized issuance, DID path (the organization's did:ledger and a did:key issuer; Bearer).
    let badge: { credential: string; holder: HolderKey } | undefined;
    for (const signing of [
      { issuer_did: organizationDid.did, issuer_private_key: organizationDid.private_key },
      didKeyIssuer(),
    ]) {
      remember(`issuer private key ${signing.issuer_did.slice(0, 16)}`, signing.issuer_private_key);
      const offer = await createOffer(urls, tenant.apiKey, { signing });
      const { code, document } = await fetchOffer(offer);
      remember(`pre-authorized code (DID ${signing.issuer_did.slice(0, 12)})`, code);
      const token = await getToken(urls, code);
      remember(`access token (DID ${signing.issuer_did.slice(0, 12)})`, token.accessToken);
      const holder = p256Key();
      rememberKey("holder key (DID path)", holder);
      const cNonce = await fetchNonce(urls);
      remember(`c_nonce (DID ${signing.issuer_did.slice(0, 12)})`, cNonce);
      const proof = await keyProof({ key: holder, nonce: cNonce, audience: document.credential_issuer });
      const issued = expectStatus(
        await postCredential(urls, token, {
          credential_configuration_id: document.credential_configuration_ids[0],
          proofs: { jwt: [proof] },
        }),
        200,
        "POST /credential (DID)",
      );
      badge = {
        credential: (issued.json as { credentials: Array<{ credential: string }> }).credentials[0]!.credential,
        holder,
      };
    }

    // Authorization-code flow (PAR, consent page, code exchange with DPoP and attestation).
    const authorized = await runAuthorizationCodeFlow(urls, tenant);
    remember("issuer_state", authorized.issuerState);
    remember("PAR request_uri", authorized.requestUri);
    remember("consent CSRF token", authorized.csrfToken);
    remember("consent session cookie", authorized.sessionCookie.split("=").slice(1).join("="));
    remember("authorization code", authorized.code);
    remember("PKCE code_verifier", authorized.codeVerifier);
    remember("access token (authorization code)", authorized.token.accessToken);
    remember("c_nonce (authorization code)", authorized.cNonce);
    rememberKey("wallet instance key", authorized.walletKey);
    rememberKey("DPoP key (authorization code)", authorized.token.dpopKey!);

    // Verification (direct_post) of the DID-path credential.
    const verifierKey = generateEd25519Jwk();
    remember("verifier private key", verifierKey.d);
    const session = await openSession(urls, tenant.apiKey, { body: { verifier_private_key: verifierKey.d } });
    remember("verification state", session.request.state);
    expectStatus(await submitPresentation(urls, session, await presentation(badge!, session)), 200, "presentation");
    expectStatus(await verificationResult(urls, tenant.apiKey, session.session_id), 200, "verification result");

    // The holder: account, receive (notarized: a webhook follows), present.
    const holderPassword = `Holder-${randomBytes(8).toString("hex")}`;
    remember("holder password", holderPassword);
    const registered = expectStatus(
      await postJson(`${urls.holder}/v1/user/register`, { password: holderPassword }),
      201,
      "holder register",
    );
    const { uuid } = registered.json as { uuid: string };
    const login = expectStatus(
      await postJson(`${urls.holder}/v1/user/login`, { uuid, password: holderPassword }),
      200,
      "holder login",
    );
    const holderToken = (login.json as { access_token: string }).access_token;
    remember("holder login token", holderToken);
    const asHolder = { authorization: `Bearer ${holderToken}` };
    const holderJwk = generateEd25519Jwk();
    remember("holder DID private key", holderJwk.d);
    const holderDid = didKeyFromPublicJwk(ed25519PublicJwk(holderJwk));
    const offer = await createOffer(urls, tenant.apiKey);
    expectStatus(
      await postJson(`${urls.holder}/v1/oid4vci/offer-details`, { credential_offer_uri: offer.deep_link }, asHolder),
      200,
      "holder offer-details",
    );
    const received = expectStatus(
      await postJson(
        `${urls.holder}/v1/oid4vci/receive`,
        { credential_offer_uri: offer.deep_link, holder_did: holderDid, private_key: holderJwk.d },
        asHolder,
      ),
      201,
      "holder receive",
    );
    const credentialId = (received.json as { credential_id: string }).credential_id;
    // A did:key verifier: a wallet accepts its signed request (a URL client_id needs its own origin).
    const holderVerifierKey = generateEd25519Jwk();
    remember("verifier private key (holder session)", holderVerifierKey.d);
    const holderSession = await openSession(urls, tenant.apiKey, {
      body: {
        verifier_private_key: holderVerifierKey.d,
        verifier_client_id: didKeyFromPublicJwk(ed25519PublicJwk(holderVerifierKey)),
      },
    });
    remember("verification state (holder)", holderSession.request.state);
    expectStatus(
      await postJson(
        `${urls.holder}/v1/oid4vp/request-details`,
        { authorization_request_uri: holderSession.authorization_request },
        asHolder,
      ),
      200,
      "holder request-details",
    );
    expectStatus(
      await postJson(
        `${urls.holder}/v1/oid4vp/presentation`,
        {
          authorization_request_uri: holderSession.authorization_request,
          selected_credentials: [{ credential_id: credentialId, query_id: "badge" }],
          holder_did: holderDid,
          private_key: holderJwk.d,
        },
        asHolder,
      ),
      200,
      "holder presentation",
    );

    // The notarization of the holder's credential is announced by a signed webhook.
    await vi.waitFor(() => expect(deliveries.length).toBeGreaterThan(0), { timeout: 60_000, interval: 250 });

    // A hostile X-Request-Id: a fresh id is used instead, and the text is not echoed.
    const forged = await http(`${urls.schema}/v1/schemas`, { headers: { "x-request-id": HOSTILE_REQUEST_ID } });
    expect(forged.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  }, 300_000);

  it("the whole log holds none of the secrets those flows handled (nor the hostile request id)", async () => {
    const launcherSecrets = JSON.parse(readFileSync(join(dataDir, "secrets.json"), "utf8")) as Record<string, string>;
    for (const [name, value] of Object.entries(launcherSecrets)) {
      remember(`launcher secret ${name}`, value);
      if (value.startsWith("{")) remember(`launcher secret ${name} (d)`, (JSON.parse(value) as { d?: string }).d);
      for (const [index, entry] of value.split(",").entries()) {
        remember(`launcher secret ${name} key ${index}`, entry.split(":")[1]);
      }
    }
    await launcher.stop("SIGTERM", 20_000);
    const log = launcher.output();
    // The log is the debug log of every service: it did record the flows.
    expect(log).toMatch(/"level":"debug"/);
    expect(log).toContain("/v1/oid4vci/receive");
    // The start-up output names what outbound requests may reach: the own loopback origins, the receiver.
    const allowance = /only these \(OUTBOUND_ALLOW_HOSTS\): (.*)/.exec(log)?.[1]?.split(", ");
    expect(allowance?.sort()).toEqual(
      [
        `127.0.0.1:${(receiver.address() as AddressInfo).port}`,
        ...Object.values(SERVICE_PORTS).map((port) => `localhost:${port + PORT_OFFSET}`),
      ].sort(),
    );
    expect(secrets.size).toBeGreaterThan(30);
    // As sent, and as URL and form encoding write it (request lines carry encoded query values).
    const spellings = (value: string) => [
      value,
      encodeURIComponent(value),
      new URLSearchParams({ v: value }).toString().slice(2),
      JSON.stringify(value).slice(1, -1),
    ];
    const leaked = [...secrets]
      .filter(([, value]) => spellings(value).some((spelling) => log.includes(spelling)))
      .map(([label]) => label);
    expect(leaked).toEqual([]);
    expect(log).not.toContain("injected=1");
  });
});
