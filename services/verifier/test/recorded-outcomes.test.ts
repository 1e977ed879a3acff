import { recordStatements } from "@attesto/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { didKeyIssuer } from "./support/credentials.js";
import { API_KEYS } from "./support/edges.js";
import {
  openSession,
  postPresentation,
  readResult,
  startTestVerifier,
  type TestVerifier,
} from "./support/test-verifier.js";
import { presentationFor, vpTokenOf } from "./support/wallet.js";

/**
 * The result of a verification this process recorded is answered from the recorded row on the
 * tenant's first read here (recorded-outcomes.ts): no statement, and the very bytes the session's
 * read gives (the next read, which goes to the database).
 */
describe("the result of a verification recorded here", () => {
  let verifier: TestVerifier;
  let statements: ReturnType<typeof recordStatements>;
  beforeAll(async () => {
    verifier = await startTestVerifier();
    statements = recordStatements(verifier.database.pool);
  });
  afterAll(() => verifier?.close());

  const verified = async (options: { kb?: { nonce: string } } = {}) => {
    const session = await openSession(verifier.app);
    const vp = await presentationFor(session, { issuer: didKeyIssuer(verifier.edges), ...options });
    const response = await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
    expect(response.statusCode).toBe(200);
    return session.sessionId;
  };

  /** The body of a result read, and the statements it sent. */
  const read = async (sessionId: string, apiKey: string = API_KEYS.verifier) => {
    let response: Awaited<ReturnType<typeof readResult>> | undefined;
    const sent = await statements.during(async () => {
      response = await readResult(verifier.app, sessionId, apiKey);
    });
    return { status: response!.statusCode, body: response!.body, statements: sent.length };
  };

  for (const [outcome, options] of [
    ["completed", {}],
    ["failed", { kb: { nonce: "not-the-session-nonce" } }],
  ] as const) {
    it(`${outcome}: the first read sends no statement and answers what the session's read answers`, async () => {
      const sessionId = await verified(options);
      const remembered = await read(sessionId);
      const fromDatabase = await read(sessionId);
      expect(remembered.statements).toBe(0);
      expect(fromDatabase.statements).toBe(1);
      expect(JSON.parse(remembered.body).status).toBe(outcome);
      expect(remembered.body).toBe(fromDatabase.body);
      expect(remembered.status).toBe(200);
    });
  }

  it("is handed only to the session's tenant: another tenant's read is a 404 and leaves it for the owner", async () => {
    const sessionId = await verified();
    const other = await read(sessionId, API_KEYS.otherVerifier);
    expect([other.status, JSON.parse(other.body)]).toEqual([
      404,
      { error: "not_found", message: "Verification session not found" },
    ]);
    const own = await read(sessionId);
    expect([own.status, own.statements, JSON.parse(own.body).status]).toEqual([200, 0, "completed"]);
  });
});
