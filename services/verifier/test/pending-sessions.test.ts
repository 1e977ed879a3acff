import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VerifierTables } from "../src/store/tables.js";
import { didKeyIssuer, PID_VCT } from "./support/credentials.js";
import {
  type ListeningTestVerifier,
  openSession,
  postPresentation,
  readResult,
  startListeningTestVerifier,
  type TestVerifier,
} from "./support/test-verifier.js";
import { presentationFor, vpTokenOf } from "./support/wallet.js";

/**
 * A presentation for a session this process created uses the session as it was stored here
 * (pending-sessions.ts) and the tenant's policies from their coherent cache: one statement, the
 * conditional write. What it answers is what reading the session would have answered.
 */
describe("a presentation for a session created here", () => {
  let listening: ListeningTestVerifier;
  let verifier: TestVerifier;
  let invalidations: ListeningTestVerifier["invalidations"];
  let statements: ListeningTestVerifier["statements"];
  beforeAll(async () => {
    listening = await startListeningTestVerifier();
    ({ verifier, invalidations, statements } = listening);
  });
  afterAll(() => listening?.close());

  const refused = (description: RegExp) => ({
    error: "invalid_request",
    error_description: expect.stringMatching(description),
  });
  const issuer = () => didKeyIssuer(verifier.edges);
  const rowOf = (id: string) =>
    (verifier.database.db as Kysely<VerifierTables>)
      .selectFrom("verification_sessions")
      .select(["status", "check_results"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  /** A session and its presentation, made after a first presentation cached the tenant's policies. */
  const sessionAfterWarmPolicies = async () => {
    const warm = await openSession(verifier.app);
    await postPresentation(verifier.app, {
      state: warm.request.state,
      vp_token: vpTokenOf(await presentationFor(warm, { issuer: issuer() })),
    });
    const session = await openSession(verifier.app);
    return { session, vp: await presentationFor(session, { issuer: issuer() }) };
  };

  it("is verified by a policy applied after the session was made (the policy cache is emptied by the change)", async () => {
    // The tenant's (empty) policies cached by a first presentation.
    const { session, vp } = await sessionAfterWarmPolicies();
    await verifier.deps.policies.apply({
      tenant: "acme",
      name: "only-other-vcts",
      trustedIssuerDids: [],
      trustedX509RootsDer: [],
      acceptedVcts: ["https://example.test/vct/other"],
      requiredClaims: [],
      verificationMode: undefined,
      sessionTtlSeconds: undefined,
      acceptAnyIssuer: false,
      acceptUnknownStatus: false,
      verifierCertificate: undefined,
      digest: "only-other-vcts",
      updatedAt: new Date(),
    });
    try {
      const response = await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
      expect(response.statusCode).toBe(200);
      const result = (await readResult(verifier.app, session.sessionId)).json();
      expect(result.status).toBe("failed");
      expect(result.check_results).toContainEqual(
        expect.objectContaining({ check: "policy.accepted_vct", reason_code: "vct_not_accepted" }),
      );
      expect(
        result.check_results.find((entry: { check: string }) => entry.check === "policy.accepted_vct").message,
      ).toContain(PID_VCT);
    } finally {
      await verifier.deps.policies.delete("acme", "only-other-vcts");
    }
  });

  it("sends one statement: the conditional write of the outcome", async () => {
    // The tenant's policies cached by a first presentation (the test before changed them).
    const { session, vp } = await sessionAfterWarmPolicies();
    const sent = await statements.during(async () => {
      const response = await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
      expect(response.statusCode).toBe(200);
    });
    const coherent = invalidations.state === "coherent";
    // Without notifications the policies are read through: two statements, as the joined read made.
    expect(sent.map((text) => text.replace(/"[a-z0-9_]+"\./g, "").slice(0, 34))).toEqual([
      ...(coherent ? [] : ['select * from "verifier_policies" ']),
      'update "verification_sessions" set',
    ]);
  });

  it("another replica decided it: verified here, then refused as a second presentation; the stored outcome stays the other's", async () => {
    const session = await openSession(verifier.app);
    const vp = await presentationFor(session, { issuer: issuer() });
    const decidedElsewhere = [
      { check: "elsewhere", status: "success", reason_code: "valid", message: "other replica" },
    ];
    await (verifier.database.db as Kysely<VerifierTables>)
      .updateTable("verification_sessions")
      .set({ status: "completed", check_results: JSON.stringify(decidedElsewhere) as never, verified_at: new Date() })
      .where("id", "=", session.sessionId)
      .execute();
    const response = await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
    expect([response.statusCode, response.json()]).toEqual([400, refused(/already submitted/)]);
    expect(await rowOf(session.sessionId)).toEqual({ status: "completed", check_results: decidedElsewhere });
  });

  it("decided here: a second presentation reads the session and is refused", async () => {
    const session = await openSession(verifier.app);
    const vp = await presentationFor(session, { issuer: issuer() });
    const form = { state: session.request.state, vp_token: vpTokenOf(vp) };
    expect((await postPresentation(verifier.app, form)).statusCode).toBe(200);
    let replay: Awaited<ReturnType<typeof postPresentation>> | undefined;
    const sent = await statements.during(async () => {
      replay = await postPresentation(verifier.app, form);
    });
    expect([replay!.statusCode, replay!.json()]).toEqual([400, refused(/already submitted/)]);
    expect(sent).toHaveLength(1);
    expect((await rowOf(session.sessionId)).status).toBe("completed");
  });

  it("expired: refused as expired before any verification, and nothing is written", async () => {
    const session = await openSession(verifier.app);
    const vp = await presentationFor(session, { issuer: issuer() });
    verifier.clock.advance(301);
    try {
      let response: Awaited<ReturnType<typeof postPresentation>> | undefined;
      const sent = await statements.during(async () => {
        response = await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
      });
      expect([response!.statusCode, response!.json()]).toEqual([400, refused(/session not found or expired/)]);
      expect(sent.filter((text) => !/verifier_policies/.test(text))).toEqual([]);
      expect((await rowOf(session.sessionId)).status).toBe("pending");
    } finally {
      verifier.clock.advance(-301);
    }
  });
});
