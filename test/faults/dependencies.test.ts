import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyTenant,
  createOffer,
  didKeyIssuer,
  dpopProof,
  fetchNonce,
  fetchOffer,
  getToken,
  issueCredential,
  keyProof,
  logIn,
  openSession,
  PRE_AUTHORIZED_GRANT,
  p256Key,
  postCredential,
  presentation,
  submitPresentation,
  type Tenant,
  verificationResult,
  withDpopNonce,
} from "../hostile/support/flows.js";
import { expectErrorBody, expectRefused, type HttpResult, http, postForm, postJson } from "../hostile/support/http.js";
import { type Cluster, startCluster, waitFor } from "./support/cluster.js";

/**
 * Dependencies failing under the services: the ledger stopped, the database connections cut (or the
 * embedded database restarted), and client clocks running ahead within and beyond the tolerances.
 */
const PORT_OFFSET = 22_110;

describe("faults: dependencies", () => {
  let cluster: Cluster;
  let tenant: Tenant;

  /**
   * A complete issuance and verification, as a smoke test that the platform works (again). X.509
   * path: a DID-path credential's key comes from the credential issuer's JWT VC Issuer Metadata,
   * which answers 503 while the ledger is unreachable (it checks the tenant's did:ledger keys).
   */
  const roundTrip = async () => {
    const issued = await issueCredential(cluster.url, tenant, { x509: true });
    const session = await openSession(cluster.url, tenant.apiKey);
    expect((await submitPresentation(cluster.url, session, await presentation(issued, session))).status).toBe(200);
    const result = await verificationResult(cluster.url, tenant.apiKey, session.session_id);
    expect((result.json as { status: string }).status, JSON.stringify(result.json)).toBe("completed");
  };

  beforeAll(async () => {
    cluster = await startCluster({
      portOffset: PORT_OFFSET,
      label: "faults_deps",
      // The scheduler carries notarizations to the ledger (is_on_chain).
      services: [
        "ledger",
        "schema-registry",
        "trust-registry",
        "auth-server",
        "credential-issuer",
        "verifier",
        "scheduler",
      ],
    });
    tenant = await applyTenant(cluster.url);
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  describe("ledger down", () => {
    it("POST /v1/did and is_on_chain issuance are 503; issuance without notarization is unaffected; both recover", async () => {
      const loginToken = await logIn(cluster.url, tenant);
      const offer = await createOffer(cluster.url, tenant.apiKey, { signing: didKeyIssuer(tenant.tenant) });
      const { code, document } = await fetchOffer(offer);
      const token = await getToken(cluster.url, code);
      const credentialRequest = async (isOnChain: boolean) =>
        postCredential(cluster.url, token, {
          credential_configuration_id: document.credential_configuration_ids[0],
          proofs: {
            jwt: [
              await keyProof({
                key: p256Key(),
                nonce: await fetchNonce(cluster.url),
                audience: document.credential_issuer,
              }),
            ],
          },
          is_on_chain: isOnChain,
        });
      const credentialsBefore = await cluster.pool.query(
        `SELECT count(*)::int AS n FROM "${cluster.schema["credential-issuer"]}".credentials`,
      );

      await cluster.stop("ledger", "SIGKILL");
      try {
        const did = await postJson(`${cluster.url.trust}/v1/did`, {}, { authorization: `Bearer ${loginToken}` });
        expect(did.status, did.text).toBe(503);
        expectErrorBody(did, "api");
        const onChain = await credentialRequest(true);
        expect(onChain.status, onChain.text).toBe(503);
        expectErrorBody(onChain, "oauth");
        // Nothing was recorded for the refused notarized issuance.
        const credentialsAfter = await cluster.pool.query(
          `SELECT count(*)::int AS n FROM "${cluster.schema["credential-issuer"]}".credentials`,
        );
        expect(credentialsAfter.rows[0].n).toBe(credentialsBefore.rows[0].n);
        // Without notarization nothing needs the ledger.
        const plain = await credentialRequest(false);
        expect(plain.status, plain.text).toBe(200);
        await roundTrip();
      } finally {
        await cluster.start("ledger");
      }
      const did = await waitFor(
        "POST /v1/did to work again",
        async () => {
          const result = await postJson(`${cluster.url.trust}/v1/did`, {}, { authorization: `Bearer ${loginToken}` });
          return result.status === 201 ? result : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 250 },
      );
      expect((did.json as { did: string }).did).toMatch(/^did:ledger:/);
      // The issuer reaches the restarted ledger too (no restart of the issuer).
      const onChain = await waitFor(
        "notarized issuance to work again",
        async () => {
          const result = await credentialRequest(true);
          return result.status === 200 ? result : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 500 },
      ).catch(async () => credentialRequest(true));
      expect(
        onChain.status,
        `${onChain.text}; issuer errors: ${cluster.errorsOf("credential-issuer").slice(-3).join(" | ")}`,
      ).toBe(200);
      expect((onChain.json as { credentials: Array<{ reference?: unknown }> }).credentials[0]!.reference).toBeDefined();
    }, 90_000);
  });

  describe("database connections lost", () => {
    it("services reconnect by themselves: after the cut every flow works again without a restart", async () => {
      await roundTrip();
      const pids = Object.fromEntries([...cluster.processes].map(([name, service]) => [name, service.child.pid]));
      let during: HttpResult[] = [];
      if (cluster.database.embedded) {
        // Restart the embedded PostgreSQL (same port, same data): every connection drops.
        const restarting = cluster.database.restart!();
        during = await Promise.all([
          http(`${cluster.url.schema}/schemas`).catch(() => undefined),
          http(`${cluster.url.issuer}/v1/nonce`, { method: "POST" }).catch(() => undefined),
        ]).then((results) => results.filter((r): r is HttpResult => r !== undefined));
        await restarting;
      } else {
        // Terminate every backend of this run's database (no other test's connections are touched).
        const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await admin.connect();
        const { rows } = await admin.query<{ terminated: boolean }>(
          "SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [cluster.database.name],
        );
        await admin.end();
        expect(rows.length, "backends of the services were found").toBeGreaterThan(0);
        during = [await http(`${cluster.url.schema}/schemas`)];
      }
      // A request that met a dead connection may fail, but cleanly (documented shape, no hang).
      for (const answer of during) {
        if (answer.status >= 500) expectErrorBody(answer, "api");
      }
      // Within a short while everything works again, with the same processes.
      await waitFor(
        "the schema registry to read its database again",
        async () => ((await http(`${cluster.url.schema}/schemas`)).status === 200 ? true : undefined),
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      const failures: string[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await roundTrip();
          break;
        } catch (error) {
          failures.push(String((error as Error).message).slice(0, 300));
        }
      }
      expect(
        failures.length,
        `round trips that failed after the database came back: ${failures.join(" | ")}`,
      ).toBeLessThan(2);
      await roundTrip();
      expect(Object.fromEntries([...cluster.processes].map(([name, service]) => [name, service.child.pid]))).toEqual(
        pids,
      );
      for (const [name, service] of cluster.processes) expect(service.child.exitCode, name).toBeNull();
    }, 120_000);
  });

  describe("clock skew (the root README: DPoP iat at most 60 s ahead; proofs likewise)", () => {
    it("a DPoP proof 50 s ahead is accepted at /v1/token, 70 s ahead is invalid_dpop_proof", async () => {
      const tokenUrl = `${cluster.url.auth}/v1/token`;
      const redeem = async (offsetSeconds: number) => {
        const { code } = await fetchOffer(await createOffer(cluster.url, tenant.apiKey));
        const key = p256Key();
        return withDpopNonce(async (nonce) =>
          postForm(
            tokenUrl,
            { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": code },
            {
              dpop: await dpopProof({
                key,
                htu: tokenUrl,
                iatOffsetSeconds: offsetSeconds,
                ...(nonce ? { nonce } : {}),
              }),
            },
          ),
        );
      };
      expect((await redeem(50)).status).toBe(200);
      expect((await redeem(-250)).status).toBe(200);
      expectRefused(await redeem(70), "oauth", { statuses: [400], code: "invalid_dpop_proof" });
      expectRefused(await redeem(-400), "oauth", { statuses: [400], code: "invalid_dpop_proof" });
    });

    it("at /credential: DPoP proofs and key proofs 50 s ahead are accepted, 70 s ahead refused", async () => {
      const { code, document } = await fetchOffer(await createOffer(cluster.url, tenant.apiKey));
      const token = await getToken(cluster.url, code, p256Key());
      const request = async (dpopOffset: number, proofOffset: number) =>
        postCredential(
          cluster.url,
          token,
          {
            credential_configuration_id: document.credential_configuration_ids[0],
            proofs: {
              jwt: [
                await keyProof({
                  key: p256Key(),
                  nonce: await fetchNonce(cluster.url),
                  audience: document.credential_issuer,
                  iatOffsetSeconds: proofOffset,
                }),
              ],
            },
          },
          { iatOffsetSeconds: dpopOffset },
        );
      expect((await request(50, 0)).status).toBe(200);
      expect((await request(0, 50)).status).toBe(200);
      expect((await request(50, 50)).status).toBe(200);
      // /credential is a resource server: a bad DPoP proof is 401 (RFC 9449 §7.1).
      expectRefused(await request(70, 0), "oauth", { statuses: [401], code: "invalid_dpop_proof" });
      expectRefused(await request(0, 70), "oauth", { statuses: [400], code: "invalid_proof" });
    });
  });
});
