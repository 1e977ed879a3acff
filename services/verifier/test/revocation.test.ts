import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyVerifierPolicy } from "../src/domain/policy/apply-verifier-policy.js";
import {
  didKeyIssuer,
  didLedgerIssuer,
  nowSeconds,
  statusListToken,
  type TestIssuer,
  x509Hierarchy,
} from "./support/credentials.js";
import {
  openSession,
  postPresentation,
  readResult,
  startTestVerifier,
  type TestVerifier,
} from "./support/test-verifier.js";
import { presentationFor, vpTokenOf } from "./support/wallet.js";

interface Result {
  status: string;
  check_results: Array<{ check: string; status: string; reason_code: string; message: string }>;
}

let verifier: TestVerifier;
let listNumber = 0;
/** A fresh status list URI per test: the verifier caches lists by URI. */
const newListUri = () => `https://status.example/lists/${++listNumber}`;

beforeAll(async () => {
  verifier = await startTestVerifier();
});
afterAll(() => verifier.close());

/** Presents a credential of `issuer` (with `status` when given) in run_all mode; returns the result. */
async function verify(issuer: TestIssuer, status?: Record<string, unknown>): Promise<Result> {
  const session = await openSession(verifier.app);
  // The KB-JWT is made at the verifier's (movable) time.
  const kb = { iat: Math.floor(verifier.clock.now().getTime() / 1000) };
  const vp = await presentationFor(session, { issuer, kb, credential: status ? { status } : {} });
  const posted = await postPresentation(verifier.app, {
    state: session.request.state,
    vp_token: vpTokenOf(vp),
    verification_mode: "run_all",
  });
  expect(posted.statusCode).toBe(200);
  return (await readResult(verifier.app, session.sessionId)).json();
}

const revocationOf = (result: Result) => result.check_results.find((c) => c.check === "revocation");
const at = (uri: string, idx: number) => ({ status_list: { idx, uri } });

/** The session is completed exactly when no check failed. */
function expectRevocation(result: Result, status: string, reasonCode: string) {
  expect(revocationOf(result), JSON.stringify(result.check_results)).toMatchObject({ status, reason_code: reasonCode });
  const othersPassed = result.check_results.filter((c) => c.check !== "revocation").every((c) => c.status !== "failed");
  expect(othersPassed, JSON.stringify(result.check_results)).toBe(true);
  expect(result.status).toBe(status === "failed" ? "failed" : "completed");
}

describe("revocation: the credential's status in its issuer's Token Status List", () => {
  it("reports valid, revoked and suspended by the status at idx; a status without meaning is status_unknown", async () => {
    const issuer = didKeyIssuer(verifier.edges);
    const uri = newListUri();
    verifier.edges.statusLists.set(uri, await statusListToken(issuer, { uri, statuses: [0, 1, 2, 3] }));
    expectRevocation(await verify(issuer, at(uri, 0)), "success", "valid");
    expectRevocation(await verify(issuer, at(uri, 1)), "failed", "revoked");
    expectRevocation(await verify(issuer, at(uri, 2)), "failed", "suspended");
    const unassigned = await verify(issuer, at(uri, 3));
    expectRevocation(unassigned, "failed", "status_unknown");
    expect(revocationOf(unassigned)?.message).toContain("no meaning");
    const beyond = await verify(issuer, at(uri, 4000));
    expectRevocation(beyond, "failed", "status_unknown");
    expect(revocationOf(beyond)?.message).toContain("beyond the status list");
  });

  it("skips a credential without a status claim", async () => {
    const result = await verify(didKeyIssuer(verifier.edges));
    expectRevocation(result, "skipped", "no_status");
  });

  it("reads the lists of did:ledger and X.509 issuers, signed the way their credentials are", async () => {
    const ledgerIssuer = didLedgerIssuer(verifier.edges);
    const ledgerList = newListUri();
    verifier.edges.statusLists.set(ledgerList, await statusListToken(ledgerIssuer, { uri: ledgerList, statuses: [1] }));
    expectRevocation(await verify(ledgerIssuer, at(ledgerList, 0)), "failed", "revoked");

    const hierarchy = await x509Hierarchy();
    verifier.edges.registered.x509Roots.push(hierarchy.rootBase64);
    const x5cIssuer = await hierarchy.issuer();
    verifier.edges.registered.issuerUrls.add(x5cIssuer.iss);
    const x5cList = newListUri();
    verifier.edges.statusLists.set(
      x5cList,
      await statusListToken(x5cIssuer, { uri: x5cList, statuses: [0, 2], iss: x5cIssuer.iss }),
    );
    expectRevocation(await verify(x5cIssuer, at(x5cList, 0)), "success", "valid");
    expectRevocation(await verify(x5cIssuer, at(x5cList, 1)), "failed", "suspended");
  });

  it("refuses a list signed by another key than the credential issuer's, or naming another issuer", async () => {
    const issuer = didKeyIssuer(verifier.edges);
    const impostor = didKeyIssuer(verifier.edges);
    // The impostor's own key header: its kid names another DID than the credential's iss.
    const otherDid = newListUri();
    verifier.edges.statusLists.set(otherDid, await statusListToken(impostor, { uri: otherDid, statuses: [0] }));
    const byOtherDid = await verify(issuer, at(otherDid, 0));
    expectRevocation(byOtherDid, "failed", "status_unknown");
    expect(revocationOf(byOtherDid)?.message).toContain("not bound to the credential's issuer");
    // The issuer's kid, the impostor's signature.
    const forged = newListUri();
    verifier.edges.statusLists.set(
      forged,
      await statusListToken({ ...impostor, header: issuer.header }, { uri: forged, statuses: [0] }),
    );
    const byForgery = await verify(issuer, at(forged, 0));
    expectRevocation(byForgery, "failed", "status_unknown");
    expect(revocationOf(byForgery)?.message).toContain("signature does not verify");
    // Signed correctly, but stating another iss.
    const otherIss = newListUri();
    verifier.edges.statusLists.set(
      otherIss,
      await statusListToken(issuer, { uri: otherIss, statuses: [0], iss: impostor.iss }),
    );
    expectRevocation(await verify(issuer, at(otherIss, 0)), "failed", "status_unknown");
  });

  it("refuses a list whose sub is not the uri, an expired list, a wrong typ", async () => {
    const issuer = didKeyIssuer(verifier.edges);
    const cases: Array<[Partial<Parameters<typeof statusListToken>[1]>, string]> = [
      [{ uri: "https://status.example/elsewhere" }, "sub"],
      [{ exp: nowSeconds() - 3600 }, "expired"],
      [{ header: { typ: "JWT" } }, "typ"],
    ];
    for (const [options, message] of cases) {
      const uri = newListUri();
      verifier.edges.statusLists.set(uri, await statusListToken(issuer, { uri, statuses: [0], ...options }));
      const result = await verify(issuer, at(uri, 0));
      expectRevocation(result, "failed", "status_unknown");
      expect(revocationOf(result)?.message).toContain(message);
    }
  });

  it("an unreachable list is status_unknown; a policy with acceptUnknownStatus accepts it", async () => {
    const issuer = didKeyIssuer(verifier.edges);
    const missing = newListUri();
    verifier.edges.statusLists.set(missing, 503);
    const unreachable = await verify(issuer, at(missing, 0));
    expectRevocation(unreachable, "failed", "status_unknown");
    expect(revocationOf(unreachable)?.message).toContain("could not be fetched");
    const malformed = await verify(issuer, { status_list: { idx: -1, uri: missing } });
    expectRevocation(malformed, "failed", "status_unknown");

    const applied = await applyVerifierPolicy(verifier.deps, {
      tenant: "acme",
      name: "tolerant",
      trustedIssuerDids: [],
      trustedX509RootsDer: [],
      acceptedVcts: [],
      requiredClaims: [],
      acceptAnyIssuer: false,
      acceptUnknownStatus: true,
      verificationMode: undefined,
      sessionTtlSeconds: undefined,
      digest: "tolerant-1",
    });
    expect(applied.policy.acceptUnknownStatus).toBe(true);
    try {
      const tolerated = await verify(issuer, at(missing, 0));
      expectRevocation(tolerated, "skipped", "status_unknown");
      expect(revocationOf(tolerated)?.message).toContain("accepted by verifier policy 'tolerant'");
      // A known status is not softened by the policy.
      const uri = newListUri();
      verifier.edges.statusLists.set(uri, await statusListToken(issuer, { uri, statuses: [1] }));
      expectRevocation(await verify(issuer, at(uri, 0)), "failed", "revoked");
    } finally {
      await verifier.deps.policies.delete("acme", "tolerant");
    }
  });

  it("reuses a list for its ttl (at most STATUS_LIST_MAX_CACHE_SECONDS), then fetches it again", async () => {
    const issuer = didKeyIssuer(verifier.edges);
    const uri = newListUri();
    verifier.edges.statusLists.set(uri, await statusListToken(issuer, { uri, statuses: [0], ttl: 60 }));
    const fetches = () => verifier.edges.calls.statusList;
    const before = fetches();
    expectRevocation(await verify(issuer, at(uri, 0)), "success", "valid");
    expect(fetches()).toBe(before + 1);
    // The issuer revokes; within the ttl the verifier still uses the list it has.
    verifier.edges.statusLists.set(uri, await statusListToken(issuer, { uri, statuses: [1], ttl: 60 }));
    expectRevocation(await verify(issuer, at(uri, 0)), "success", "valid");
    expect(fetches()).toBe(before + 1);
    verifier.clock.advance(61);
    expectRevocation(await verify(issuer, at(uri, 0)), "failed", "revoked");
    expect(fetches()).toBe(before + 2);

    // Without a ttl, the configured maximum (300 s by default) bounds the reuse.
    const untimed = newListUri();
    verifier.edges.statusLists.set(untimed, await statusListToken(issuer, { uri: untimed, statuses: [0] }));
    expectRevocation(await verify(issuer, at(untimed, 0)), "success", "valid");
    verifier.edges.statusLists.set(untimed, await statusListToken(issuer, { uri: untimed, statuses: [2] }));
    verifier.clock.advance(299);
    expectRevocation(await verify(issuer, at(untimed, 0)), "success", "valid");
    verifier.clock.advance(2);
    expectRevocation(await verify(issuer, at(untimed, 0)), "failed", "suspended");
  });
});
