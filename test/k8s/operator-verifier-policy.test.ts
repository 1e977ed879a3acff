import { OPERATOR_CALLER, type RunningOperator, startOperator, VERIFIER_POLICY_FINALIZER } from "@attesto/operator";
import { verifierPolicyV1 } from "@attesto/proto";
import { createRpcClient, type InternalServer, startInternalServer } from "@attesto/runtime/rpc";
import { testCredentialSigner, testCredentialVerifier } from "@attesto/runtime/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { verifier as verifierModule } from "../../services/verifier/src/service.js";
import { didLedgerIssuer, type TestIssuer } from "../../services/verifier/test/support/credentials.js";
import {
  openSession,
  postPresentation,
  readResult,
  startTestVerifier,
  type TestVerifier,
} from "../../services/verifier/test/support/test-verifier.js";
import { presentationFor, vpTokenOf } from "../../services/verifier/test/support/wallet.js";
import { readExample, toStoredSecret } from "./support/examples.js";
import { FakeKubeApiServer, type StoredObject } from "./support/fake-kube-apiserver.js";
import { InMemoryTrustRegistry } from "./support/platform-double.js";
import { waitFor } from "./support/wait-for.js";

/**
 * A VerifierPolicy enforced end to end: the example YAML applied through the real watch path; the
 * operator drives a real verifier (its own test schema, its internal Connect port over HTTP); an RP
 * uses the API key the operator wrote into the Tenant's Secret; wallets present credentials.
 */
const GROUP = "attesto.dev";
const VERSION = "v1alpha1";
const NS = "attesto-tenants";
const DIPLOMA_VCT = "https://example.test/vct/university-diploma";
/** The example policy trusts this issuer DID only. */
const TRUSTED_DID = "did:ledger:acme-university";

let server: FakeKubeApiServer;
let registry: InMemoryTrustRegistry;
let verifier: TestVerifier;
let internal: InternalServer;
let operator: RunningOperator | undefined;

const diplomaQuery = {
  credentials: [
    {
      id: "diploma",
      format: "dc+sd-jwt",
      meta: { vct_values: [DIPLOMA_VCT] },
      claims: [{ path: ["given_name"] }, { path: ["degree"] }],
    },
  ],
};

function applyExample(file: string) {
  for (const document of readExample(file)) {
    if (document.kind === "Secret") server.apply("", "v1", "secrets", toStoredSecret(document));
    else {
      const plural =
        document.kind === "VerifierPolicy" ? "verifierpolicies" : `${String(document.kind).toLowerCase()}s`;
      server.apply(GROUP, VERSION, plural, document);
    }
  }
}

const policyResource = () => server.get(GROUP, "verifierpolicies", NS, "acme-university");
const readyReason = (object: StoredObject | undefined) =>
  (
    object?.status as { conditions?: Array<{ type: string; status: string; reason: string }> } | undefined
  )?.conditions?.find((c) => c.type === "Ready" && c.status === "True")?.reason;
const apiKey = () => {
  const value = (
    server.get("", "secrets", NS, "acme-university-api-key")?.data as Record<string, string> | undefined
  )?.["api-key"];
  return value === undefined ? undefined : Buffer.from(value, "base64").toString("utf8");
};

/** An RP session of the tenant (its API key) answered by a wallet holding a diploma from `issuer`. */
async function presentDiploma(issuer: TestIssuer, disclose: Record<string, unknown>) {
  const key = apiKey()!;
  const session = await openSession(verifier.app, { dcql_query: diplomaQuery }, key);
  const vp = await presentationFor(session, {
    issuer,
    credential: { vct: DIPLOMA_VCT, claims: { given_name: "Ada", family_name: "Lovelace", degree: "BSc" } },
    disclose,
  });
  const posted = await postPresentation(verifier.app, {
    state: session.request.state,
    vp_token: vpTokenOf(vp, "diploma"),
  });
  expect(posted.statusCode).toBe(200);
  return (await readResult(verifier.app, session.sessionId, key)).json() as {
    status: string;
    verification_mode: string;
    created_at: string;
    expires_at: string;
    check_results: Array<{ check: string; status: string; reason_code: string; message: string }>;
  };
}

const failedChecks = (result: Awaited<ReturnType<typeof presentDiploma>>) =>
  result.check_results.filter((entry) => entry.status === "failed").map((entry) => [entry.check, entry.reason_code]);

beforeAll(async () => {
  registry = new InMemoryTrustRegistry();
  // The verifier authenticates RP API keys against the same trust registry the operator provisions.
  verifier = await startTestVerifier({ tenants: registry.platform({ caller: "verifier" }).tenants });
  internal = await startInternalServer({
    service: "verifier",
    version: "test",
    host: "127.0.0.1",
    port: 0,
    routes: (router) => verifierModule.definition.rpc!(router, verifier.context),
    verifier: testCredentialVerifier("verifier"),
    logger: verifier.app.log,
  });
});

afterAll(async () => {
  await internal.close();
  await verifier.close();
});

beforeEach(async () => {
  server = await new FakeKubeApiServer().start();
  operator = await startOperator({
    kubeConfig: server.kubeConfig(),
    platform: {
      ...registry.platform(),
      // What createPlatform builds: a Connect client of the verifier's internal port, as "operator".
      verifierPolicies: createRpcClient(verifierPolicyV1.VerifierPolicyService, {
        baseUrl: internal.url,
        audience: "verifier",
        signer: testCredentialSigner(OPERATOR_CALLER),
        timeoutMs: 5_000,
      }),
    },
    identity: "operator-0",
    leaderElection: false,
    maxAttempts: 5,
    baseDelayMs: 20,
    maxDelayMs: 200,
  });
});

afterEach(async () => {
  await operator?.close();
  await server.close();
});

describe("VerifierPolicy enforced by a real verifier", () => {
  it("fails an untrusted issuer with the policy check named, accepts the trusted one, and lets go on delete", async () => {
    applyExample("tenant.yaml");
    applyExample("verifier-policy.yaml");
    const applied = await waitFor(
      () => readyReason(policyResource()) === "Applied" && policyResource(),
      "policy applied",
    );
    expect(applied.status).toMatchObject({ tenantId: "acme-university", enforcement: "Enforced" });
    expect(applied.metadata.finalizers).toEqual([VERIFIER_POLICY_FINALIZER]);
    const stored = await verifier.deps.policies.find("acme-university", "acme-university");
    expect(stored).toMatchObject({
      trustedIssuerDids: [TRUSTED_DID],
      acceptedVcts: [DIPLOMA_VCT],
      requiredClaims: [["degree"], ["given_name"]],
      verificationMode: "run_all",
      sessionTtlSeconds: 600,
      acceptAnyIssuer: false,
      acceptUnknownStatus: false,
      digest: (applied.status as { policyDigest: string }).policyDigest,
    });

    const trusted = didLedgerIssuer(verifier.edges, { did: TRUSTED_DID });
    const untrusted = didLedgerIssuer(verifier.edges);

    const refused = await presentDiploma(untrusted, { given_name: true, degree: true });
    expect(refused.status).toBe("failed");
    // run_all (the policy's mode): the issuer is trusted neither by default nor by the policy.
    expect(refused.verification_mode).toBe("run_all");
    expect(failedChecks(refused)).toEqual([
      ["issuer_trust", "untrusted_issuer"],
      ["policy.trusted_issuer", "untrusted_issuer"],
    ]);
    expect(refused.check_results.find((entry) => entry.check === "policy.trusted_issuer")?.message).toBe(
      "the issuer is not trusted by verifier policy 'acme-university'",
    );

    const accepted = await presentDiploma(trusted, { given_name: true, degree: true });
    expect(accepted.status).toBe("completed");
    expect((Date.parse(accepted.expires_at) - Date.parse(accepted.created_at)) / 1000).toBe(600);

    const withoutDegree = await presentDiploma(trusted, { given_name: true });
    expect(failedChecks(withoutDegree)).toEqual(
      expect.arrayContaining([["policy.required_claims", "required_claim_missing"]]),
    );

    // Deleting the resource: the finalizer removes the policy from the verifier first.
    server.delete(GROUP, "verifierpolicies", NS, "acme-university");
    await waitFor(() => policyResource() === undefined, "VerifierPolicy gone");
    expect(await verifier.deps.policies.listByTenant("acme-university")).toEqual([]);
    // Without the policy: no policy checks, and an issuer unknown to the platform is still not trusted.
    const unrestricted = await presentDiploma(untrusted, { given_name: true, degree: true });
    expect(unrestricted.check_results.some((entry) => entry.check.startsWith("policy."))).toBe(false);
    expect(failedChecks(unrestricted)).toEqual([["issuer_trust", "untrusted_issuer"]]);
  });
});
