import { randomUUID } from "node:crypto";
import {
  attestationPublicJwk,
  createClientAttestationJwt,
  createClientAttestationPopJwt,
  createPkce,
  generateEd25519Jwk,
  generateP256Jwk,
} from "@attesto/protocol";
import type { JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDemoClientAttestation,
  DEMO_WALLET_PROVIDER_ISSUER,
  DEMO_WALLET_PROVIDER_KID,
  DEMO_WALLET_PROVIDER_PRIVATE_JWK,
} from "../src/demo-wallet-provider.js";
import {
  attestationHeaders,
  createTestWallet,
  offerAuthorizationCode,
  parFields,
  postPar,
  type TestWallet,
} from "./support/authorization-code-flow.js";
import { AUTH_URL, startTestAuthServer, type TestAuthServer } from "./support/test-auth-server.js";
import { expectOAuthError } from "./support/token-requests.js";

const ATTESTATION = "OAuth-Client-Attestation";
const POP = "OAuth-Client-Attestation-PoP";

describe("POST /v1/par: client attestation (attest_jwt_client_auth), required by default", () => {
  let server: TestAuthServer;
  let wallet: TestWallet;
  let fields: Record<string, string | string[]>;
  beforeAll(async () => {
    server = await startTestAuthServer();
    wallet = createTestWallet();
    fields = parFields(wallet, createPkce(), { issuer_state: offerAuthorizationCode(server).issuerState });
  });
  afterAll(() => server.close());

  const push = (headers: Record<string, string | string[]>) => postPar(server.app, fields, headers);
  const pop = (options: Partial<Parameters<typeof createClientAttestationPopJwt>[0]> = {}) =>
    createClientAttestationPopJwt({
      instancePrivateJwk: wallet.instanceKey,
      clientId: wallet.clientId,
      audience: AUTH_URL,
      ...options,
    });
  const demoAttestation = (options: Partial<Parameters<typeof createClientAttestationJwt>[0]> = {}) =>
    createClientAttestationJwt({
      providerPrivateJwk: DEMO_WALLET_PROVIDER_PRIVATE_JWK as JWK,
      kid: DEMO_WALLET_PROVIDER_KID,
      issuer: DEMO_WALLET_PROVIDER_ISSUER,
      clientId: wallet.clientId,
      instancePublicJwk: wallet.instanceKey,
      ...options,
    });

  /** Every fault: 401 invalid_client with a precise description, nothing stored, the issuer not asked. */
  async function expectRefused(headers: Record<string, string | string[]>, description: string) {
    const before = server.grants.issuerStateRequests.length;
    const response = await push(headers);
    expectOAuthError(response, 401, "invalid_client", description);
    expect(server.grants.issuerStateRequests.length).toBe(before);
  }

  it("accepts a demo wallet provider attestation with its PoP", async () => {
    const response = await push(await attestationHeaders(wallet));
    expect(response.statusCode).toBe(201);
  });

  it("401 when the headers are missing, or one of them is", async () => {
    await expectRefused({}, "OAuth-Client-Attestation and OAuth-Client-Attestation-PoP headers are required");
    const { [POP]: popOnly } = await attestationHeaders(wallet);
    await expectRefused({ [POP]: popOnly! }, "OAuth-Client-Attestation header is required");
    await expectRefused({ [ATTESTATION]: await demoAttestation() }, "OAuth-Client-Attestation-PoP header is required");
  });

  it("401 for an attestation that is not a JWT, or of another typ", async () => {
    await expectRefused({ [ATTESTATION]: "garbage", [POP]: await pop() }, "client attestation is not a compact JWT");
    await expectRefused(
      { [ATTESTATION]: await demoAttestation({ extraHeader: { typ: "JWT" } }), [POP]: await pop() },
      'client attestation typ must be "oauth-client-attestation+jwt"',
    );
  });

  it("401 for a bad signature", async () => {
    const forged = await demoAttestation({ providerPrivateJwk: generateP256Jwk() as JWK });
    await expectRefused({ [ATTESTATION]: forged, [POP]: await pop() }, "client attestation signature is invalid");
    const good = await demoAttestation();
    await expectRefused(
      { [ATTESTATION]: `${good.slice(0, -6)}AAAAAA`, [POP]: await pop() },
      "client attestation signature is invalid",
    );
  });

  it("401 for an untrusted wallet provider", async () => {
    const rogue = generateP256Jwk() as JWK;
    for (const kid of ["rogue-provider", undefined]) {
      const attestation = await demoAttestation({ providerPrivateJwk: rogue, kid });
      await expectRefused(
        { [ATTESTATION]: attestation, [POP]: await pop() },
        "client attestation is not signed by a trusted wallet provider",
      );
    }
  });

  it("401 for an expired attestation", async () => {
    const expired = await demoAttestation({ now: new Date(Date.now() - 7200_000), ttlSeconds: 3600 });
    await expectRefused({ [ATTESTATION]: expired, [POP]: await pop() }, "client attestation has expired");
  });

  it("401 for a PoP with the wrong aud", async () => {
    for (const audience of ["http://localhost:8081/v1/par", "https://other-as.example"]) {
      await expectRefused(
        { [ATTESTATION]: await demoAttestation(), [POP]: await pop({ audience }) },
        `client attestation PoP aud must be the authorization server issuer ${AUTH_URL}`,
      );
    }
  });

  it("401 for a replayed PoP jti", async () => {
    const headers = { [ATTESTATION]: await demoAttestation(), [POP]: await pop({ jti: randomUUID() }) };
    expect((await push(headers)).statusCode).toBe(201);
    await expectRefused(headers, "client attestation PoP jti has already been used");
  });

  it("401 when client_id is not the attestation's sub", async () => {
    const other = createTestWallet();
    await expectRefused(await attestationHeaders(other), "client_id does not match the client attestation sub");
  });

  it("401 for a PoP not signed by the attestation's cnf key, an expired or stale PoP, or a PoP from another client", async () => {
    const attestation = await demoAttestation();
    const cases: Array<[string, string]> = [
      [
        await pop({ instancePrivateJwk: generateP256Jwk() as JWK }),
        "client attestation PoP signature does not verify with the attestation's cnf key",
      ],
      [await pop({ now: new Date(Date.now() - 120_000) }), "client attestation PoP has expired"],
      [
        await pop({ now: new Date(Date.now() - 400_000), ttlSeconds: 600 }),
        "client attestation PoP is too old (iat more than 300 s in the past)",
      ],
      [
        await pop({ clientId: "someone-else" }),
        "client attestation PoP iss must equal the client attestation sub (the client_id)",
      ],
      [
        await pop({ extraHeader: { typ: "dpop+jwt" } }),
        'client attestation PoP typ must be "oauth-client-attestation-pop+jwt"',
      ],
    ];
    for (const [popJwt, description] of cases) {
      await expectRefused({ [ATTESTATION]: attestation, [POP]: popJwt }, description);
    }
  });

  it("401 for repeated headers", async () => {
    const attestation = await demoAttestation();
    await expectRefused(
      { [ATTESTATION]: [attestation, attestation], [POP]: await pop() },
      "Exactly one OAuth-Client-Attestation header is allowed",
    );
  });

  it("does not require an attestation challenge", async () => {
    const response = await push({
      [ATTESTATION]: await demoAttestation(),
      [POP]: await pop({ extraClaims: { nonce: undefined } }),
    });
    expect(response.statusCode).toBe(201);
  });

  it("counts refusals by reason", async () => {
    const metrics = await server.context.metrics.registry.getSingleMetricAsString("client_attestation_failures_total");
    expect(metrics).toMatch(/client_attestation_failures_total\{reason="untrusted",service="auth-server"\} [1-9]/);
    expect(metrics).toMatch(/client_attestation_failures_total\{reason="replay",service="auth-server"\} [1-9]/);
  });
});

describe("client attestation trust from configuration", () => {
  const provider = generateEd25519Jwk() as JWK;
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startTestAuthServer({
      env: {
        CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: "false",
        CLIENT_ATTESTATION_TRUSTED_KEYS: JSON.stringify({
          keys: [{ ...attestationPublicJwk(provider), kid: "acme-wallets" }],
        }),
      },
    });
  });
  afterAll(() => server.close());

  it("trusts the configured provider (EdDSA) and no longer the demo provider", async () => {
    const wallet = createTestWallet();
    const fields = parFields(wallet, createPkce(), { issuer_state: offerAuthorizationCode(server).issuerState });
    const attestation = await createClientAttestationJwt({
      providerPrivateJwk: provider,
      kid: "acme-wallets",
      clientId: wallet.clientId,
      instancePublicJwk: wallet.instanceKey,
    });
    const accepted = await postPar(server.app, fields, await attestationHeaders(wallet, { attestation }));
    expect(accepted.statusCode).toBe(201);

    const demo = await createDemoClientAttestation({
      clientId: wallet.clientId,
      instancePublicJwk: wallet.instanceKey,
    });
    const refused = await postPar(server.app, fields, await attestationHeaders(wallet, { attestation: demo }));
    expectOAuthError(refused, 401, "invalid_client", "client attestation is not signed by a trusted wallet provider");
  });
});

describe("the demo wallet provider is not trusted by default (its private key is public)", () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    // A standalone auth server as deployed: CLIENT_ATTESTATION_* left unset.
    server = await startTestAuthServer({ trustDemoProvider: false });
  });
  afterAll(() => server.close());

  it("refuses a PAR whose client attestation is signed with the published demo key, for any client_id", async () => {
    expect(server.config.CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER).toBe(false);
    expect(server.deps.clientAttestationTrust.keys).toEqual([]);
    for (const clientId of [`wallet-${randomUUID()}`, "https://wallet.example.org", "victim-client"]) {
      const wallet = createTestWallet(clientId);
      const fields = parFields(wallet, createPkce(), { issuer_state: offerAuthorizationCode(server).issuerState });
      // Signed exactly as an attacker would: the private JWK from the repository, with its kid and iss.
      const forged = await createClientAttestationJwt({
        providerPrivateJwk: DEMO_WALLET_PROVIDER_PRIVATE_JWK as JWK,
        kid: DEMO_WALLET_PROVIDER_KID,
        issuer: DEMO_WALLET_PROVIDER_ISSUER,
        clientId,
        instancePublicJwk: wallet.instanceKey,
      });
      const refused = await postPar(server.app, fields, await attestationHeaders(wallet, { attestation: forged }));
      expectOAuthError(refused, 401, "invalid_client", "client attestation is not signed by a trusted wallet provider");
    }
  });
});
