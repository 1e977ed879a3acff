import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  didKeyIssuer,
  didLedgerIssuer,
  PID_VCT,
  statusListToken,
  type TestIssuer,
  x509Hierarchy,
} from "./support/credentials.js";
import { API_KEYS } from "./support/edges.js";
import {
  openSession,
  postPresentation,
  readResult,
  startTestVerifier,
  type TestVerifier,
} from "./support/test-verifier.js";
import { presentationFor, vpTokenOf } from "./support/wallet.js";

const CHECK_NAMES = [
  "sd_jwt_structure",
  "issuer_signature",
  "issuer_trust",
  "credential_type",
  "vct",
  "validity",
  "holder_binding",
  "dcql",
  "trusted_authorities",
  "revocation",
];

/** The verifier publishes after answering the wallet: wait for the session's event. */
function waitForEvent(edges: TestVerifier["edges"], sessionId: string) {
  return vi.waitFor(
    () => {
      const found = edges.verificationEvents.find((e) => e.sessionId === sessionId);
      if (!found) throw new Error(`no verification event for session ${sessionId}`);
      return found;
    },
    { timeout: 2000, interval: 10 },
  );
}

describe("POST /v1/verifier/presentation (direct_post)", () => {
  let verifier: TestVerifier;
  beforeAll(async () => {
    verifier = await startTestVerifier();
  });
  afterAll(() => verifier.close());

  describe("a valid presentation", () => {
    const issuers: Array<[string, () => Promise<TestIssuer>]> = [
      ["did:key (EdDSA)", async () => didKeyIssuer(verifier.edges)],
      ["did:ledger (EdDSA)", async () => didLedgerIssuer(verifier.edges)],
      [
        "x5c (ES256) to the platform root CA",
        async () => {
          const ca = await x509Hierarchy();
          verifier.edges.trustAnchors = [ca.rootBase64];
          // The leaf names an active issuer tenant (a chain to the root CA alone is not registered).
          const issuer = await ca.issuer();
          verifier.edges.registered.issuerUrls.add(issuer.iss);
          return issuer;
        },
      ],
    ];

    for (const [name, makeIssuer] of issuers) {
      it(`completes, with only the disclosed claims, for an issuer on ${name}`, async () => {
        const issuer = await makeIssuer();
        const session = await openSession(verifier.app);
        const before = Date.now();
        const vp = await presentationFor(session, { issuer });
        const response = await postPresentation(verifier.app, {
          state: session.request.state,
          vp_token: vpTokenOf(vp),
        });
        expect([response.statusCode, response.json()]).toEqual([200, {}]);
        expect(response.headers["content-type"]).toMatch(/^application\/json/);
        const result = await readResult(verifier.app, session.sessionId);
        expect(result.statusCode).toBe(200);
        const body = result.json();
        expect(body).toMatchObject({
          session_id: session.sessionId,
          status: "completed",
          verification_mode: "fail_fast",
          presentation_metadata: {
            claims: { given_name: "Ada", family_name: "Lovelace" },
            credential_metadata: [
              {
                issuer: issuer.iss,
                credential_type: [PID_VCT],
                issued_at: expect.stringMatching(/Z$/),
                expires_at: expect.stringMatching(/Z$/),
              },
            ],
          },
        });
        expect(Object.keys(body.presentation_metadata.claims).sort()).toEqual(["family_name", "given_name"]);
        expect(body.error).toBeUndefined();
        expect(Date.parse(body.verified_at)).toBeGreaterThanOrEqual(before - 1000);
        expect(body.check_results.map((c: { check: string }) => c.check)).toEqual(CHECK_NAMES);
        for (const check of body.check_results) {
          expect(["success", "skipped"]).toContain(check.status);
          expect(check.reason_code).toMatch(/^[a-z_]+$/);
          expect(typeof check.message).toBe("string");
        }
        expect(body.check_results.find((c: { check: string }) => c.check === "issuer_signature")).toMatchObject({
          status: "success",
          reason_code: "valid",
        });
        // The tenant's verification.completed webhook: session id and result summary, no claim values.
        const published = await waitForEvent(verifier.edges, session.sessionId);
        expect({ ...published, result: JSON.parse(published.resultJson) }).toMatchObject({
          tenant: "acme",
          sessionId: session.sessionId,
          verified: true,
          result: {
            status: "completed",
            verification_mode: "fail_fast",
            failed_check: null,
            check_results: body.check_results,
          },
        });
        expect(published.resultJson).not.toContain("Lovelace");
      });
    }

    it("reports revocation as success when the issuer's status list says valid, and nested disclosed claims", async () => {
      const issuer = didKeyIssuer(verifier.edges);
      const session = await openSession(verifier.app, {
        dcql_query: {
          credentials: [
            {
              id: "pid",
              format: "dc+sd-jwt",
              meta: { vct_values: [PID_VCT] },
              claims: [{ path: ["address", "country"] }],
            },
          ],
        },
      });
      const uri = "https://status.example/presentation-test";
      verifier.edges.statusLists.set(uri, await statusListToken(issuer, { uri, statuses: [0] }));
      const vp = await presentationFor(session, {
        issuer,
        disclose: { address: { country: true } },
        credential: { status: { status_list: { idx: 0, uri } } },
      });
      await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
      const body = (await readResult(verifier.app, session.sessionId)).json();
      expect(body.status).toBe("completed");
      expect(body.presentation_metadata.claims).toEqual({ address: { country: "GB" } });
      expect(body.check_results.at(-1)).toMatchObject({
        check: "revocation",
        status: "success",
        reason_code: "valid",
      });
    });

    it("returns the redirect_uri with session_id, and accepts a bare SD-JWT vp_token", async () => {
      const session = await openSession(verifier.app, { redirect_uri: "https://rp.example/done?x=1" });
      const vp = await presentationFor(session, { issuer: didKeyIssuer(verifier.edges) });
      const response = await postPresentation(verifier.app, { state: session.request.state, vp_token: vp });
      expect([response.statusCode, response.json()]).toEqual([
        200,
        { redirect_uri: `https://rp.example/done?x=1&session_id=${session.sessionId}` },
      ]);
      expect((await readResult(verifier.app, session.sessionId)).json().status).toBe("completed");
      const plain = await openSession(verifier.app, { redirect_uri: "https://rp.example/cb" });
      const vp2 = await presentationFor(plain, { issuer: didKeyIssuer(verifier.edges) });
      const answer = await postPresentation(verifier.app, {
        state: plain.request.state,
        vp_token: JSON.stringify({ pid: vp2 }),
      });
      expect(answer.json()).toEqual({ redirect_uri: `https://rp.example/cb?session_id=${plain.sessionId}` });
      expect((await readResult(verifier.app, plain.sessionId)).json().status).toBe("completed");
    });

    it("accepts a JSON body and a JSON-encoded string vp_token", async () => {
      const session = await openSession(verifier.app);
      const vp = await presentationFor(session, { issuer: didKeyIssuer(verifier.edges) });
      const response = await verifier.app.inject({
        method: "POST",
        url: "/v1/verifier/presentation",
        payload: { state: session.request.state, vp_token: JSON.stringify(vp) },
      });
      expect(response.statusCode).toBe(200);
      expect((await readResult(verifier.app, session.sessionId)).json().status).toBe("completed");
    });
  });

  describe("refusals: 400 invalid_request (OAuth shape)", () => {
    const refused = (description: RegExp) => ({
      error: "invalid_request",
      error_description: expect.stringMatching(description),
    });

    it("missing state, missing vp_token and response, unknown state", async () => {
      const session = await openSession(verifier.app);
      const vp = await presentationFor(session, { issuer: didKeyIssuer(verifier.edges) });
      const noState = await postPresentation(verifier.app, { vp_token: vpTokenOf(vp) });
      expect([noState.statusCode, noState.json()]).toEqual([400, refused(/state is required/)]);
      const nothing = await postPresentation(verifier.app, { state: session.request.state });
      expect([nothing.statusCode, nothing.json()]).toEqual([400, refused(/vp_token or response is required/)]);
      const empty = await verifier.app.inject({ method: "POST", url: "/v1/verifier/presentation" });
      expect([empty.statusCode, empty.json().error]).toEqual([400, "invalid_request"]);
      const unknown = await postPresentation(verifier.app, { state: "no-such-state", vp_token: vpTokenOf(vp) });
      expect([unknown.statusCode, unknown.json()]).toEqual([400, refused(/session not found or expired/)]);
      const badMode = await postPresentation(verifier.app, {
        state: session.request.state,
        vp_token: vpTokenOf(vp),
        verification_mode: "sometimes",
      });
      expect([badMode.statusCode, badMode.json()]).toEqual([400, refused(/verification_mode must be one of/)]);
      const badJson = await postPresentation(verifier.app, { state: session.request.state, vp_token: "{not json" });
      expect([badJson.statusCode, badJson.json()]).toEqual([400, refused(/vp_token is not valid JSON/)]);
      const array = await postPresentation(verifier.app, {
        state: session.request.state,
        vp_token: JSON.stringify([vp]),
      });
      expect([array.statusCode, array.json()]).toEqual([400, refused(/keyed by credential query id/)]);
      // None of these consumed the session.
      expect((await readResult(verifier.app, session.sessionId)).json().status).toBe("pending");
    });

    it("a replayed submission: a session accepts one presentation", async () => {
      const session = await openSession(verifier.app);
      const vp = await presentationFor(session, { issuer: didKeyIssuer(verifier.edges) });
      const first = await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
      expect(first.statusCode).toBe(200);
      const replay = await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
      expect([replay.statusCode, replay.json()]).toEqual([400, refused(/already submitted/)]);
      expect((await readResult(verifier.app, session.sessionId)).json().status).toBe("completed");
      // The request object is no longer served once the session has its answer.
      expect(
        (await verifier.app.inject({ method: "GET", url: `/v1/verifier/request/${session.requestUriId}` })).statusCode,
      ).toBe(404);
    });

    // Single use (one presentation per session): the checks run before the session is touched, and
    // one conditional write (pending -> completed | failed) admits exactly one of concurrent
    // submissions; the others get the refusal a second presentation gets, and nothing of theirs is
    // stored, counted or announced.
    it("concurrent submissions: exactly one is accepted, the losers are refused as a second presentation", async () => {
      const session = await openSession(verifier.app);
      const vp = await presentationFor(session, { issuer: didKeyIssuer(verifier.edges) });
      const responses = await Promise.all(
        Array.from({ length: 5 }, () =>
          postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) }),
        ),
      );
      expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 400, 400, 400, 400]);
      for (const loser of responses.filter((r) => r.statusCode === 400)) {
        expect(loser.json()).toEqual(refused(/already submitted/));
      }
      const result = (await readResult(verifier.app, session.sessionId)).json();
      expect(result.status).toBe("completed");
      await waitForEvent(verifier.edges, session.sessionId);
      expect(verifier.edges.verificationEvents.filter((e) => e.sessionId === session.sessionId)).toHaveLength(1);
    });

    it("concurrent submissions that verify differently: the stored result is the winner's", async () => {
      const session = await openSession(verifier.app);
      const issuer = didKeyIssuer(verifier.edges);
      const good = await presentationFor(session, { issuer });
      const bad = await presentationFor(session, { issuer, kb: { nonce: "not-the-request-nonce" } });
      const [first, second] = await Promise.all(
        [good, bad].map((vp) =>
          postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) }),
        ),
      );
      expect([first!.statusCode, second!.statusCode].sort()).toEqual([200, 400]);
      const result = (await readResult(verifier.app, session.sessionId)).json();
      expect(result.status).toBe(first!.statusCode === 200 ? "completed" : "failed");
      if (result.status === "failed") {
        expect(result.check_results).toContainEqual(
          expect.objectContaining({ check: "holder_binding", status: "failed" }),
        );
      }
    });

    it("an expired session", async () => {
      const session = await openSession(verifier.app, { expires_in: 60 });
      const vp = await presentationFor(session, { issuer: didKeyIssuer(verifier.edges) });
      verifier.clock.advance(61);
      try {
        const response = await postPresentation(verifier.app, {
          state: session.request.state,
          vp_token: vpTokenOf(vp),
        });
        expect([response.statusCode, response.json()]).toEqual([400, refused(/session not found or expired/)]);
        const result = (await readResult(verifier.app, session.sessionId)).json();
        expect(result).toMatchObject({ status: "expired", error: { code: "session_expired" } });
      } finally {
        verifier.clock.advance(-61);
      }
    });

    it("a direct_post.jwt session refuses a plain vp_token", async () => {
      const session = await openSession(verifier.app, { response_mode: "direct_post.jwt" });
      const vp = await presentationFor(session, { issuer: didKeyIssuer(verifier.edges) });
      const response = await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
      expect([response.statusCode, response.json()]).toEqual([400, refused(/requires an encrypted response/)]);
    });
  });

  describe("verification failures are recorded, the wallet still gets 200", () => {
    it("fail_fast skips the checks after the first failure; run_all runs them all", async () => {
      const wrongNonce = { nonce: "not-the-request-nonce" };
      const fast = await openSession(verifier.app);
      const vp = await presentationFor(fast, {
        issuer: didKeyIssuer(verifier.edges),
        kb: wrongNonce,
        credential: { exp: 1000 },
      });
      const response = await postPresentation(verifier.app, { state: fast.request.state, vp_token: vpTokenOf(vp) });
      expect([response.statusCode, response.json()]).toEqual([200, {}]);
      const fastResult = (await readResult(verifier.app, fast.sessionId)).json();
      expect(fastResult.status).toBe("failed");
      expect(fastResult.presentation_metadata).toBeUndefined();
      expect(fastResult.verified_at).toBeDefined();
      const byName = Object.fromEntries(fastResult.check_results.map((c: { check: string }) => [c.check, c]));
      expect(byName.validity).toMatchObject({ status: "failed", reason_code: "expired" });
      for (const later of ["holder_binding", "dcql", "trusted_authorities", "revocation"]) {
        expect(byName[later]).toMatchObject({ status: "skipped", reason_code: "previous_check_failed" });
      }
      const failedEvent = await waitForEvent(verifier.edges, fast.sessionId);
      expect({ verified: failedEvent.verified, result: JSON.parse(failedEvent.resultJson) }).toMatchObject({
        verified: false,
        result: { status: "failed", failed_check: "validity", check_results: fastResult.check_results },
      });

      const all = await openSession(verifier.app);
      const vp2 = await presentationFor(all, {
        issuer: didKeyIssuer(verifier.edges),
        kb: wrongNonce,
        credential: { exp: 1000 },
      });
      await postPresentation(verifier.app, {
        state: all.request.state,
        vp_token: vpTokenOf(vp2),
        verification_mode: "run_all",
      });
      const allResult = (await readResult(verifier.app, all.sessionId)).json();
      expect(allResult).toMatchObject({ status: "failed", verification_mode: "run_all" });
      const allByName = Object.fromEntries(allResult.check_results.map((c: { check: string }) => [c.check, c]));
      expect(allByName.validity).toMatchObject({ status: "failed", reason_code: "expired" });
      expect(allByName.holder_binding).toMatchObject({ status: "failed", reason_code: "kb_jwt_nonce_mismatch" });
      expect(allByName.dcql).toMatchObject({ status: "success" });
      expect(allByName.trusted_authorities).toMatchObject({ status: "skipped", reason_code: "not_requested" });
    });

    it("an empty vp_token object fails sd_jwt_structure with no_presentation", async () => {
      const session = await openSession(verifier.app);
      await postPresentation(verifier.app, {
        state: session.request.state,
        vp_token: "{}",
        verification_mode: "run_all",
      });
      const result = (await readResult(verifier.app, session.sessionId)).json();
      expect(result.status).toBe("failed");
      expect(result.check_results[0]).toMatchObject({
        check: "sd_jwt_structure",
        status: "failed",
        reason_code: "no_presentation",
      });
      expect(result.check_results.find((c: { check: string }) => c.check === "dcql")).toMatchObject({
        status: "failed",
        reason_code: "credential_query_unanswered",
      });
    });
  });

  it("the result of another tenant's session is 404", async () => {
    const session = await openSession(verifier.app);
    const other = await readResult(verifier.app, session.sessionId, API_KEYS.otherVerifier);
    expect([other.statusCode, other.json()]).toEqual([
      404,
      { error: "not_found", message: "Verification session not found" },
    ]);
  });
});
