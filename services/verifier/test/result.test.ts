import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failInterruptedVerifications } from "../src/domain/fail-interrupted-verifications.js";
import type { VerificationMode } from "../src/domain/verification-session.js";
import type { VerifierTables } from "../src/store/tables.js";
import { API_KEYS } from "./support/edges.js";
import { openSession, readResult, startTestVerifier, type TestVerifier } from "./support/test-verifier.js";

describe("GET /v1/verifier/result/:sessionId", () => {
  let verifier: TestVerifier;
  /** A session as an earlier version stored it while verifying (this version never writes in_progress). */
  const markInProgress = async (sessionId: string, mode: VerificationMode, submittedAt: Date) => {
    await (verifier.database.db as Kysely<VerifierTables>)
      .updateTable("verification_sessions")
      .set({ status: "in_progress", verification_mode: mode, submitted_at: submittedAt })
      .where("id", "=", sessionId)
      .where("status", "=", "pending")
      .execute();
  };
  beforeAll(async () => {
    verifier = await startTestVerifier();
  });
  afterAll(() => verifier.close());

  it("needs an API key", async () => {
    const session = await openSession(verifier.app);
    const missing = await verifier.app.inject({ method: "GET", url: `/v1/verifier/result/${session.sessionId}` });
    expect([missing.statusCode, missing.json()]).toEqual([
      401,
      { error: "unauthorized", message: "API Key is required" },
    ]);
    const invalid = await readResult(verifier.app, session.sessionId, "nope");
    expect([invalid.statusCode, invalid.json()]).toEqual([401, { error: "unauthorized", message: "Invalid API Key" }]);
  });

  it("is 404 for another tenant's session, an unknown id and a malformed id", async () => {
    const session = await openSession(verifier.app);
    const notFound = { error: "not_found", message: "Verification session not found" };
    for (const [id, key] of [
      [session.sessionId, API_KEYS.otherVerifier],
      [session.sessionId, API_KEYS.issuerOnly],
      ["00000000-0000-4000-8000-000000000000", API_KEYS.verifier],
      ["not-a-uuid", API_KEYS.verifier],
    ] as const) {
      const response = await readResult(verifier.app, id, key);
      expect([response.statusCode, response.json()]).toEqual([404, notFound]);
    }
  });

  it("a pending session: status, timestamps, default mode, no results yet", async () => {
    const session = await openSession(verifier.app);
    const response = await readResult(verifier.app, session.sessionId);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      session_id: session.sessionId,
      status: "pending",
      created_at: expect.stringMatching(/Z$/),
      expires_at: expect.stringMatching(/Z$/),
      verification_mode: "fail_fast",
      check_results: [],
    });
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(300_000);
  });

  it("in_progress for a session an earlier version was verifying", async () => {
    const session = await openSession(verifier.app);
    await markInProgress(session.sessionId, "run_all", new Date());
    const body = (await readResult(verifier.app, session.sessionId)).json();
    expect(body).toMatchObject({ status: "in_progress", verification_mode: "run_all", check_results: [] });
    expect(body.verified_at).toBeUndefined();
  });

  it("recording a verification is single use: of concurrent writes for one session exactly one lands", async () => {
    const session = await openSession(verifier.app);
    const outcome = (status: "completed" | "failed") => ({
      mode: "run_all" as const,
      submittedAt: new Date(),
      responseCodeHash: undefined,
      status,
      checkResults: [{ check: "verification", status: "failed" as const, reason_code: status, message: status }],
      presentationMetadata: undefined,
      verifiedAt: new Date(),
    });
    const written = await Promise.all(
      (["completed", "failed", "completed", "failed"] as const).map((status) =>
        verifier.deps.sessions.recordVerification(session.sessionId, outcome(status)),
      ),
    );
    expect(written.filter(Boolean)).toHaveLength(1);
    const winner = (["completed", "failed", "completed", "failed"] as const)[written.indexOf(true)];
    const body = (await readResult(verifier.app, session.sessionId)).json();
    expect(body).toMatchObject({ status: winner, verification_mode: "run_all" });
    expect(body.check_results).toEqual([outcome(winner!).checkResults[0]]);
    // Nor is a session an earlier version left in_progress, or an expired one, recorded.
    const legacy = await openSession(verifier.app);
    await markInProgress(legacy.sessionId, "fail_fast", new Date());
    expect(await verifier.deps.sessions.recordVerification(legacy.sessionId, outcome("completed"))).toBe(false);
    const late = await openSession(verifier.app, { expires_in: 60 });
    const arrivedLate = { ...outcome("completed"), submittedAt: new Date(Date.now() + 61_000) };
    expect(await verifier.deps.sessions.recordVerification(late.sessionId, arrivedLate)).toBe(false);
  });

  it("an expired session carries error {code, message} and nothing else new", async () => {
    const session = await openSession(verifier.app, { expires_in: 60 });
    verifier.clock.advance(60);
    try {
      const body = (await readResult(verifier.app, session.sessionId)).json();
      expect(body).toEqual({
        session_id: session.sessionId,
        status: "expired",
        created_at: expect.any(String),
        expires_at: expect.any(String),
        verification_mode: "fail_fast",
        check_results: [],
        error: { code: "session_expired", message: "The verification session expired before a presentation arrived" },
      });
    } finally {
      verifier.clock.advance(-60);
    }
  });

  it("a verification an earlier version's dead process left in_progress ends as failed (interrupted)", async () => {
    const session = await openSession(verifier.app);
    await markInProgress(session.sessionId, "fail_fast", new Date(Date.now() - 30_000));
    const fresh = await openSession(verifier.app);
    await markInProgress(fresh.sessionId, "fail_fast", new Date());
    const deps = { sessions: verifier.deps.sessions, now: () => new Date(), timeoutSeconds: 10 };
    expect(await failInterruptedVerifications(deps)).toBe(1);
    const response = await readResult(verifier.app, session.sessionId);
    expect(response.json()).toMatchObject({
      status: "failed",
      check_results: [
        {
          check: "verification",
          status: "failed",
          reason_code: "interrupted",
          message: "Verification was interrupted before it finished; ask the wallet to present again",
        },
      ],
    });
    expect((await readResult(verifier.app, fresh.sessionId)).json().status).toBe("in_progress");
  });
});
