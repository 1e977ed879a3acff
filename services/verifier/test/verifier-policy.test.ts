import { verifierPolicyV1 } from "@attesto/proto";
import type { ServiceIdentity } from "@attesto/runtime/rpc";
import { clientInterceptors, serverInterceptors } from "@attesto/runtime/rpc";
import { rpcFailureOf, testCredentialSigner, testCredentialVerifier } from "@attesto/runtime/testing";
import { type Client, createClient, createRouterTransport } from "@connectrpc/connect";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { verifier as verifierModule } from "../src/service.js";
import { didLedgerIssuer, PID_VCT, type TestIssuer, x509Hierarchy } from "./support/credentials.js";
import { API_KEYS } from "./support/edges.js";
import {
  openSession,
  postPresentation,
  readResult,
  startTestVerifier,
  type TestVerifier,
} from "./support/test-verifier.js";
import { type PresentOptions, presentationFor, vpTokenOf } from "./support/wallet.js";

const { VerifierPolicyService } = verifierPolicyV1;
/** ApplyPolicy's policy, as a plain object. */
type PolicyInit = Partial<Omit<verifierPolicyV1.VerifierPolicy, "$typeName" | "$unknown" | "requiredClaims">> & {
  requiredClaims?: Array<{ segments: string[] }>;
};
const silentLogger = { error() {} } as unknown as Parameters<typeof serverInterceptors>[1];

let verifier: TestVerifier;

/** VerifierPolicyService as the internal port serves it (credential check, error mapping), called as `caller`. */
function policyClient(caller: ServiceIdentity = "operator"): Client<typeof VerifierPolicyService> {
  const transport = createRouterTransport((router) => verifierModule.definition.rpc!(router, verifier.context), {
    router: {
      interceptors: serverInterceptors(testCredentialVerifier("verifier"), silentLogger),
    },
    transport: {
      interceptors: clientInterceptors({
        signer: testCredentialSigner(caller),
        audience: "verifier",
      }),
    },
  });
  return createClient(VerifierPolicyService, transport);
}

/** The tenant of API_KEYS.verifier in the trust-registry double is "acme". */
const policy = (overrides: Partial<PolicyInit> = {}): PolicyInit => ({
  tenant: "acme",
  name: "acme-policy",
  digest: `digest-${Math.random()}`,
  ...overrides,
});

/** Opens a session for acme, presents a credential of `issuer`, returns the result body. */
async function verify(issuer: TestIssuer, options: Omit<PresentOptions, "issuer"> = {}, body = {}) {
  const session = await openSession(verifier.app, body);
  const vp = await presentationFor(session, { issuer, ...options });
  const posted = await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
  expect(posted.statusCode).toBe(200);
  return (await readResult(verifier.app, session.sessionId)).json() as {
    status: string;
    verification_mode: string;
    check_results: Array<{ check: string; status: string; reason_code: string; message: string }>;
  };
}

const checkOf = (result: Awaited<ReturnType<typeof verify>>, name: string) =>
  result.check_results.find((entry) => entry.check === name);

beforeAll(async () => {
  verifier = await startTestVerifier();
});
afterAll(() => verifier.close());
beforeEach(async () => {
  for (const tenant of ["acme", "globex"]) {
    for (const stored of await verifier.deps.policies.listByTenant(tenant)) {
      await verifier.deps.policies.delete(tenant, stored.name);
    }
  }
});

describe("VerifierPolicyService", () => {
  it("applies idempotently by digest, reads back, deletes idempotently", async () => {
    const client = policyClient();
    const ca = await x509Hierarchy("Policy Root");
    const declared = policy({
      trustedIssuerDids: ["did:ledger:abc"],
      trustedX509RootsDer: [Buffer.from(ca.rootBase64, "base64")],
      acceptedVcts: ["https://example.test/vct/a"],
      requiredClaims: [{ segments: ["address", "country"] }],
      verificationMode: verifierPolicyV1.VerificationMode.RUN_ALL,
      sessionTtlSeconds: 120,
      digest: "d1",
    });
    const first = await client.applyPolicy({ policy: declared });
    expect(first.changed).toBe(true);
    const again = await client.applyPolicy({ policy: { ...declared, acceptedVcts: ["ignored: same digest"] } });
    expect(again.changed).toBe(false);
    expect(again.policy?.acceptedVcts).toEqual(["https://example.test/vct/a"]);

    const { policy: read } = await client.getPolicy({ tenant: "acme", name: "acme-policy" });
    expect(read).toMatchObject({
      tenant: "acme",
      name: "acme-policy",
      trustedIssuerDids: ["did:ledger:abc"],
      acceptedVcts: ["https://example.test/vct/a"],
      requiredClaims: [{ segments: ["address", "country"] }],
      verificationMode: verifierPolicyV1.VerificationMode.RUN_ALL,
      sessionTtlSeconds: 120,
      digest: "d1",
    });
    expect(Buffer.from(read!.trustedX509RootsDer[0]!).toString("base64")).toBe(ca.rootBase64);

    const changed = await client.applyPolicy({ policy: { ...declared, acceptedVcts: [], digest: "d2" } });
    expect([changed.changed, changed.policy?.acceptedVcts]).toEqual([true, []]);

    expect((await client.deletePolicy({ tenant: "acme", name: "acme-policy" })).deleted).toBe(true);
    expect((await client.deletePolicy({ tenant: "acme", name: "acme-policy" })).deleted).toBe(false);
    expect(await rpcFailureOf(client.getPolicy({ tenant: "acme", name: "acme-policy" }))).toEqual({
      code: "NotFound",
      message: "verifier policy not found",
    });
  });

  it.each([
    [{ tenant: "" }, "tenant must not be empty"],
    [{ tenant: "ACME" }, "tenant may contain only"],
    [{ name: "Bad Name" }, "name may contain only"],
    [{ trustedIssuerDids: ["https://not-a-did"] }, "trusted_issuer_dids must hold DIDs"],
    [{ trustedX509RootsDer: [new Uint8Array([1, 2, 3])] }, "trusted_x509_roots_der must hold DER CA certificates"],
    [{ acceptedVcts: [""] }, "accepted_vcts must not hold empty values"],
    [{ requiredClaims: [{ segments: [] }] }, "required_claims paths must not be empty"],
    [{ sessionTtlSeconds: 30 }, "session_ttl_seconds must be 0 or 60-3600"],
    [{ digest: "" }, "digest is required"],
  ] as Array<[Partial<PolicyInit>, string]>)("refuses %o with INVALID_ARGUMENT", async (overrides, message) => {
    const failure = await rpcFailureOf(policyClient().applyPolicy({ policy: policy(overrides) }));
    expect(failure.code).toBe("InvalidArgument");
    expect(failure.message).toContain(message);
  });

  it("carries acceptUnknownStatus (default false) through apply and get", async () => {
    const plain = await policyClient().applyPolicy({ policy: policy({ name: "status-policy" }) });
    expect(plain.policy?.acceptUnknownStatus).toBe(false);
    const tolerant = await policyClient().applyPolicy({
      policy: policy({ name: "status-policy", acceptUnknownStatus: true, digest: "tolerant" }),
    });
    expect([tolerant.changed, tolerant.policy?.acceptUnknownStatus]).toEqual([true, true]);
    const read = await policyClient().getPolicy({ tenant: "acme", name: "status-policy" });
    expect(read.policy?.acceptUnknownStatus).toBe(true);
    await policyClient().deletePolicy({ tenant: "acme", name: "status-policy" });
  });

  it("refuses a leaf (non-CA) certificate as a root, and callers other than the operator", async () => {
    const ca = await x509Hierarchy("Leafy");
    const leaf = await ca.issuer();
    const leafDer = Buffer.from((leaf.header.x5c as string[])[0]!, "base64");
    expect(
      (await rpcFailureOf(policyClient().applyPolicy({ policy: policy({ trustedX509RootsDer: [leafDer] }) }))).code,
    ).toBe("InvalidArgument");
    expect(await rpcFailureOf(policyClient("credential-issuer").applyPolicy({ policy: policy() }))).toEqual({
      code: "PermissionDenied",
      message: "attesto.verifier.v1.VerifierPolicyService/ApplyPolicy may not be called by 'credential-issuer'",
    });
    expect((await rpcFailureOf(policyClient("holder").deletePolicy({ tenant: "acme", name: "x" }))).code).toBe(
      "PermissionDenied",
    );
  });
});

describe("enforcement of a tenant's verifier policy", () => {
  it("without a policy the pipeline is unchanged (no policy checks)", async () => {
    const result = await verify(didLedgerIssuer(verifier.edges));
    expect(result.status).toBe("completed");
    expect(result.check_results.some((entry) => entry.check.startsWith("policy."))).toBe(false);
  });

  it("issuer_trust: a policy's DID trusts an issuer the platform does not know; acceptAnyIssuer (unsafe) trusts any bound issuer", async () => {
    const stranger = didLedgerIssuer(verifier.edges, { registered: false });
    const untrusted = await verify(stranger);
    expect(untrusted.status).toBe("failed");
    expect(checkOf(untrusted, "issuer_trust")).toMatchObject({ status: "failed", reason_code: "untrusted_issuer" });

    await policyClient().applyPolicy({ policy: policy({ trustedIssuerDids: [stranger.iss] }) });
    const listed = await verify(stranger);
    expect(listed.status).toBe("completed");
    expect(checkOf(listed, "issuer_trust")).toMatchObject({ status: "success", reason_code: "policy" });

    const applied = await policyClient().applyPolicy({ policy: policy({ acceptAnyIssuer: true, digest: "any" }) });
    expect(applied.policy?.acceptAnyIssuer).toBe(true);
    expect((await policyClient().getPolicy({ tenant: "acme", name: "acme-policy" })).policy?.acceptAnyIssuer).toBe(
      true,
    );
    const anyone = await verify(didLedgerIssuer(verifier.edges, { registered: false }));
    expect(anyone.status).toBe("completed");
    expect(checkOf(anyone, "issuer_trust")).toMatchObject({ status: "success", reason_code: "any_issuer" });
    // A forged key binding is not rescued by acceptAnyIssuer.
    const impostor = { ...didLedgerIssuer(verifier.edges, { registered: false }), iss: stranger.iss };
    const forged = await verify(impostor);
    expect(forged.status).toBe("failed");
    expect(checkOf(forged, "issuer_signature")?.status).toBe("failed");
  });

  it("fails an issuer DID the policy does not trust, naming policy.trusted_issuer; a trusted one completes", async () => {
    const trusted = didLedgerIssuer(verifier.edges);
    const untrusted = didLedgerIssuer(verifier.edges);
    await policyClient().applyPolicy({ policy: policy({ trustedIssuerDids: [`${trusted.iss}#key-1`] }) });

    const refused = await verify(untrusted);
    expect(refused.status).toBe("failed");
    expect(checkOf(refused, "policy.trusted_issuer")).toEqual({
      check: "policy.trusted_issuer",
      status: "failed",
      reason_code: "untrusted_issuer",
      message: "the issuer is not trusted by verifier policy 'acme-policy'",
    });
    expect(checkOf(refused, "revocation")?.reason_code).toBe("previous_check_failed");

    const accepted = await verify(trusted);
    expect(accepted.status).toBe("completed");
    expect(accepted.check_results.map((entry) => [entry.check, entry.status, entry.reason_code])).toEqual(
      expect.arrayContaining([
        ["policy.trusted_issuer", "success", "trusted"],
        ["policy.accepted_vct", "skipped", "not_restricted"],
        ["policy.required_claims", "skipped", "not_restricted"],
      ]),
    );
    const names = accepted.check_results.map((entry) => entry.check);
    expect(names.indexOf("policy.trusted_issuer")).toBe(names.indexOf("trusted_authorities") + 1);
    expect(names.at(-1)).toBe("revocation");
  });

  it("trusts an x5c chain only when it leads to a policy root, which also anchors it", async () => {
    const policyCa = await x509Hierarchy("Policy CA");
    const platformCa = await x509Hierarchy("Platform CA");
    verifier.edges.trustAnchors = [platformCa.rootBase64];
    await policyClient().applyPolicy({
      policy: policy({ trustedX509RootsDer: [Buffer.from(policyCa.rootBase64, "base64")] }),
    });
    // Not a platform anchor: the policy root alone makes the chain valid and trusted.
    expect((await verify(await policyCa.issuer())).status).toBe("completed");
    // A platform-anchored chain is valid but not trusted by this policy.
    const platformIssuer = await platformCa.issuer();
    verifier.edges.registered.issuerUrls.add(platformIssuer.iss);
    const platformIssued = await verify(platformIssuer);
    expect(checkOf(platformIssued, "issuer_signature")?.status).toBe("success");
    expect(checkOf(platformIssued, "policy.trusted_issuer")).toMatchObject({
      status: "failed",
      reason_code: "untrusted_issuer",
    });
    // A DID-signed credential is not trusted by a policy naming only X.509 roots.
    expect(checkOf(await verify(didLedgerIssuer(verifier.edges)), "policy.trusted_issuer")?.status).toBe("failed");
    verifier.edges.trustAnchors = [];
  });

  it("fails a vct the policy does not accept, naming policy.accepted_vct, the presented and the accepted vcts", async () => {
    await policyClient().applyPolicy({
      policy: policy({ acceptedVcts: ["https://example.test/vct/other", "https://example.test/vct/third"] }),
    });
    const result = await verify(didLedgerIssuer(verifier.edges));
    expect(result.status).toBe("failed");
    expect(checkOf(result, "policy.accepted_vct")).toMatchObject({
      status: "failed",
      reason_code: "vct_not_accepted",
      message: `the credential's vct ${PID_VCT} is not among the accepted vcts [https://example.test/vct/other, https://example.test/vct/third] of verifier policy '${policy().name}'`,
    });
  });

  it("fails a required claim that was not disclosed, naming policy.required_claims and the path only", async () => {
    await policyClient().applyPolicy({
      policy: policy({ requiredClaims: [{ segments: ["given_name"] }, { segments: ["address", "country"] }] }),
    });
    const issuer = didLedgerIssuer(verifier.edges);
    const missing = await verify(issuer);
    expect(checkOf(missing, "policy.required_claims")).toEqual({
      check: "policy.required_claims",
      status: "failed",
      reason_code: "required_claim_missing",
      message: "claim 'address.country' required by verifier policy 'acme-policy' was not disclosed",
    });
    const disclosed = await verify(issuer, {
      disclose: { given_name: true, family_name: true, address: { country: true } },
    });
    expect(disclosed.status).toBe("completed");
    expect(checkOf(disclosed, "policy.required_claims")?.reason_code).toBe("present");
  });

  it("applies every policy of the tenant, and only to that tenant", async () => {
    const issuer = didLedgerIssuer(verifier.edges);
    await policyClient().applyPolicy({ policy: policy({ name: "a", trustedIssuerDids: [issuer.iss] }) });
    await policyClient().applyPolicy({ policy: policy({ name: "b", requiredClaims: [{ segments: ["birthdate"] }] }) });
    await policyClient().applyPolicy({
      policy: policy({ tenant: "globex", name: "a", trustedIssuerDids: ["did:ledger:nobody"] }),
    });
    const result = await verify(issuer);
    expect(checkOf(result, "policy.trusted_issuer")?.status).toBe("success");
    expect(checkOf(result, "policy.required_claims")?.message).toContain("verifier policy 'b'");
    // globex's policy does not touch acme: without b, acme's presentation completes.
    await policyClient().deletePolicy({ tenant: "acme", name: "b" });
    expect((await verify(issuer)).status).toBe("completed");
  });

  it("uses the policy's session TTL (default and cap) and verification mode", async () => {
    await policyClient().applyPolicy({
      policy: policy({ sessionTtlSeconds: 120, verificationMode: verifierPolicyV1.VerificationMode.RUN_ALL }),
    });
    const ttlOf = async (body: Record<string, unknown>) => {
      const session = await openSession(verifier.app, body);
      const result = (await readResult(verifier.app, session.sessionId)).json();
      return (Date.parse(result.expires_at) - Date.parse(result.created_at)) / 1000;
    };
    expect(await ttlOf({})).toBe(120);
    expect(await ttlOf({ expires_in: 600 })).toBe(120);
    expect(await ttlOf({ expires_in: 60 })).toBe(60);
    // The shortest of several policies' TTLs caps; a policy without one (0) does not.
    await policyClient().applyPolicy({ policy: policy({ name: "longer", sessionTtlSeconds: 600 }) });
    await policyClient().applyPolicy({ policy: policy({ name: "unset", sessionTtlSeconds: 0 }) });
    expect(await ttlOf({})).toBe(120);
    expect(await ttlOf({ expires_in: 90 })).toBe(90);
    expect(await ttlOf({ expires_in: 3600 })).toBe(120);
    const result = await verify(didLedgerIssuer(verifier.edges));
    expect(result.verification_mode).toBe("run_all");
    // Another tenant keeps the default.
    const other = await openSession(verifier.app, {}, API_KEYS.otherVerifier);
    const otherResult = (await readResult(verifier.app, other.sessionId, API_KEYS.otherVerifier)).json();
    expect((Date.parse(otherResult.expires_at) - Date.parse(otherResult.created_at)) / 1000).toBe(300);
  });
});
