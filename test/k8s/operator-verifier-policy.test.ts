import { type RunningOperator, startOperator, VERIFIER_POLICY_FINALIZER } from "@attesto/operator";
import { verifierPolicyV1 } from "@attesto/proto";
import { decodeJwt } from "jose";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { didKeyOf, type WalletKey, walletKey } from "../interop/support/keys.js";
import { decodeSdJwt, presentSdJwtVc } from "../interop/support/sd-jwt.js";
import { applyTenant, createOffer, createOrganizationDid } from "../interop/support/tenant.js";
import { InteropWallet, receiveCredential } from "../interop/support/wallet.js";
import { readExample, toStoredSecret } from "./support/examples.js";
import { FakeKubeApiServer, type StoredObject } from "./support/fake-kube-apiserver.js";
import { OperatorPlatform } from "./support/real-platform.js";
import { waitFor } from "./support/wait-for.js";

/**
 * A VerifierPolicy enforced end to end: the example YAML applied through the real watch path; the
 * operator drives the real trust registry and verifier (support/real-platform.ts, port offset below).
 * The relying party uses the API key the operator wrote into the Tenant's Secret; wallets present
 * diplomas issued by the real credential issuer for two other real tenants, each signing with its
 * own did:ledger DID: one the policy trusts, one it does not.
 */
const GROUP = "attesto.dev";
const VERSION = "v1alpha1";
const NS = "attesto-tenants";
const PORT_OFFSET = 19_910;
/** The example Tenant's platform tenant id. */
const TENANT = "acme-university";

interface HeldDiploma {
  credential: string;
  holder: WalletKey;
  /** The issuer DID it is signed with. */
  did: string;
}

let platform: OperatorPlatform;
let server: FakeKubeApiServer;
let operator: RunningOperator | undefined;
let vct = "";
let trusted: HeldDiploma;
let untrusted: HeldDiploma;

/** A diploma issued (pre-authorized code, DID signing) by a new tenant registered through the public API. */
async function diplomaFrom(label: string): Promise<HeldDiploma> {
  const issuer = await applyTenant(platform.services, label);
  const did = await createOrganizationDid(platform.services, issuer);
  const offer = await createOffer(platform.services, issuer, { did });
  const wallet = new InteropWallet();
  const holder = wallet.key("ES256");
  const received = await receiveCredential(wallet, offer.deep_link, {
    dpop: false,
    proofKey: holder,
    proofKeyReference: "jwk",
  });
  return { credential: received.credential, holder, did: did.did };
}

const diplomaQuery = () => ({
  credentials: [
    {
      id: "diploma",
      format: "dc+sd-jwt",
      meta: { vct_values: [vct] },
      claims: [{ path: ["given_name"] }, { path: ["degree"] }],
    },
  ],
});

/** The example files, the policy trusting the `trusted` issuer's DID and accepting the diploma's vct. */
function applyExample(file: string) {
  for (const document of readExample(file)) {
    if (document.kind === "VerifierPolicy") {
      document.spec = { ...(document.spec as object), trustedIssuers: { dids: [trusted.did] }, acceptedVcts: [vct] };
    }
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

interface VerificationResult {
  status: string;
  verification_mode: string;
  created_at: string;
  expires_at: string;
  check_results: Array<{ check: string; status: string; reason_code: string; message: string }>;
}

/** An RP session of the tenant (its API key) on the verifier's public port, answered by a wallet holding `held`. */
async function presentDiploma(held: HeldDiploma, disclose: Record<string, unknown>): Promise<VerificationResult> {
  const key = apiKey()!;
  const verifierUrl = platform.services.url("verifier");
  const relyingParty = walletKey("EdDSA");
  const created = await fetch(`${verifierUrl}/v1/verifier/authorization-request`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({
      dcql_query: diplomaQuery(),
      verifier_private_key: relyingParty.privateKey.export({ format: "jwk" }).d,
      verifier_client_id: didKeyOf(relyingParty),
      response_mode: "direct_post",
    }),
  });
  const createdBody = await created.text();
  expect(created.status, createdBody).toBe(201);
  const session = JSON.parse(createdBody) as { session_id: string; authorization_request: string };
  const requestObject = await fetch(new URL(session.authorization_request).searchParams.get("request_uri")!);
  expect(requestObject.status).toBe(200);
  const request = decodeJwt(await requestObject.text()) as {
    client_id: string;
    nonce: string;
    state: string;
    response_uri: string;
  };
  const vp = await presentSdJwtVc(held.credential, disclose, held.holder, {
    aud: request.client_id,
    nonce: request.nonce,
  });
  const posted = await fetch(request.response_uri, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ state: request.state, vp_token: JSON.stringify({ diploma: [vp] }) }).toString(),
  });
  expect(posted.status, await posted.text()).toBe(200);
  const result = await fetch(`${verifierUrl}/v1/verifier/result/${session.session_id}`, {
    headers: { "x-api-key": key },
  });
  expect(result.status).toBe(200);
  return (await result.json()) as VerificationResult;
}

const failedChecks = (result: VerificationResult) =>
  result.check_results.filter((entry) => entry.status === "failed").map((entry) => [entry.check, entry.reason_code]);

beforeAll(async () => {
  platform = await OperatorPlatform.start({ portOffset: PORT_OFFSET, label: "policy" });
  trusted = await diplomaFrom("trusted-university");
  untrusted = await diplomaFrom("diploma-mill");
  vct = decodeSdJwt(trusted.credential).payload.vct as string;
}, 120_000);

afterAll(async () => {
  await platform?.close();
});

beforeEach(async () => {
  platform.reset();
  server = await new FakeKubeApiServer().start();
  operator = await startOperator({
    kubeConfig: server.kubeConfig(),
    platform: platform.platform(),
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

describe("VerifierPolicy enforced by the real verifier", () => {
  it("fails an issuer the policy does not trust with the policy check named, accepts the trusted one, and lets go on delete", async () => {
    expect(vct).toBe(`${platform.services.url("schema-registry")}/schemas/university-diploma/v1`);
    applyExample("tenant.yaml");
    applyExample("verifier-policy.yaml");
    const applied = await waitFor(
      () => readyReason(policyResource()) === "Applied" && policyResource(),
      "policy applied",
    );
    expect(applied.status).toMatchObject({ tenantId: TENANT, enforcement: "Enforced" });
    expect(applied.metadata.finalizers).toEqual([VERIFIER_POLICY_FINALIZER]);
    // The policy as the verifier holds it (asked over its internal RPC port).
    expect(await platform.policy(TENANT, "acme-university")).toMatchObject({
      tenant: TENANT,
      name: "acme-university",
      trustedIssuerDids: [trusted.did],
      acceptedVcts: [vct],
      requiredClaims: [{ segments: ["degree"] }, { segments: ["given_name"] }],
      verificationMode: verifierPolicyV1.VerificationMode.RUN_ALL,
      sessionTtlSeconds: 600,
      acceptAnyIssuer: false,
      acceptUnknownStatus: false,
      digest: (applied.status as { policyDigest: string }).policyDigest,
    });
    expect(platform.callsOf("ApplyPolicy", TENANT)).toHaveLength(1);

    // The other issuer is registered with the platform (issuer_trust passes), but not in the policy.
    const refused = await presentDiploma(untrusted, { given_name: true, degree: { name: true } });
    expect(refused.status).toBe("failed");
    expect(refused.verification_mode).toBe("run_all");
    expect(failedChecks(refused)).toEqual([["policy.trusted_issuer", "untrusted_issuer"]]);
    expect(refused.check_results.find((entry) => entry.check === "policy.trusted_issuer")?.message).toBe(
      "the issuer is not trusted by verifier policy 'acme-university'",
    );

    const accepted = await presentDiploma(trusted, { given_name: true, degree: { name: true } });
    expect(accepted.status).toBe("completed");
    expect(failedChecks(accepted)).toEqual([]);
    expect((Date.parse(accepted.expires_at) - Date.parse(accepted.created_at)) / 1000).toBe(600);

    const withoutDegree = await presentDiploma(trusted, { given_name: true });
    expect(withoutDegree.status).toBe("failed");
    expect(failedChecks(withoutDegree)).toEqual([
      ["dcql", "claim_missing"],
      ["policy.required_claims", "required_claim_missing"],
    ]);

    // Deleting the resource: the finalizer removes the policy from the verifier first.
    server.delete(GROUP, "verifierpolicies", NS, "acme-university");
    await waitFor(() => policyResource() === undefined, "VerifierPolicy gone");
    expect(platform.callsOf("DeletePolicy", TENANT)).toHaveLength(1);
    expect(await platform.policy(TENANT, "acme-university")).toBeUndefined();
    // Without the policy: no policy checks, and the platform-registered issuer is accepted.
    const unrestricted = await presentDiploma(untrusted, { given_name: true, degree: { name: true } });
    expect(unrestricted.check_results.some((entry) => entry.check.startsWith("policy."))).toBe(false);
    expect(failedChecks(unrestricted)).toEqual([]);
    expect(unrestricted.status).toBe("completed");
  });
});
