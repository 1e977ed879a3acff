import { recordStatements } from "@attesto/store";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { didKeyIssuer } from "./support/credentials.js";
import { API_KEYS } from "./support/edges.js";
import {
  type OpenedSession,
  pidQuery,
  postPresentation,
  readResult,
  startTestVerifier,
  type TestVerifier,
  verifierIdentity,
} from "./support/test-verifier.js";
import { presentationFor, vpTokenOf } from "./support/wallet.js";

/**
 * The verifier's database work per step of a verification (direct_post), counted at the pg pool:
 * every statement a step sends. These are the budget the hack/bench README's figures come from; a
 * step that needs one more statement should say why there.
 */
describe("database statements per verification step", () => {
  let verifier: TestVerifier;
  let statements: ReturnType<typeof recordStatements>;
  beforeAll(async () => {
    verifier = await startTestVerifier();
    statements = recordStatements(verifier.database.pool);
  });
  afterAll(() => verifier.close());

  const countOf = async (step: () => Promise<unknown>) =>
    (await statements.during(step)).map((text) => text.replace(/"[a-z0-9_]+"\./g, "").slice(0, 60));

  it("authorization request 1, request object 1, presentation 3, result 1; no explicit transaction", async () => {
    const steps: Record<string, string[]> = {};
    const identity = verifierIdentity();
    let sessionId = "";
    let requestUriId = "";
    steps.authorizationRequest = await countOf(async () => {
      const created = await verifier.app.inject({
        method: "POST",
        url: "/v1/verifier/authorization-request",
        headers: { "x-api-key": API_KEYS.verifier },
        payload: {
          dcql_query: pidQuery(),
          verifier_private_key: identity.privateKey,
          verifier_client_id: identity.did,
        },
      });
      expect(created.statusCode).toBe(201);
      sessionId = created.json().session_id;
      requestUriId = created.json().request_uri.split("/").pop();
    });
    let request = {} as OpenedSession["request"];
    steps.requestObject = await countOf(async () => {
      const fetched = await verifier.app.inject({ method: "GET", url: `/v1/verifier/request/${requestUriId}` });
      expect(fetched.statusCode).toBe(200);
      request = decodeJwt(fetched.body) as OpenedSession["request"];
    });
    const opened = { sessionId, requestUriId, requestUri: "", authorizationRequest: "", request };
    const vp = await presentationFor(opened, { issuer: didKeyIssuer(verifier.edges) });
    steps.presentation = await countOf(async () => {
      const response = await postPresentation(verifier.app, { state: opened.request.state, vp_token: vpTokenOf(vp) });
      expect(response.statusCode).toBe(200);
    });
    steps.result = await countOf(async () => {
      const response = await readResult(verifier.app, opened.sessionId);
      expect(response.json().status).toBe("completed");
    });
    const counts = Object.fromEntries(Object.entries(steps).map(([step, texts]) => [step, texts.length]));
    expect(counts, JSON.stringify(steps, null, 1)).toEqual({
      authorizationRequest: 1,
      requestObject: 1,
      presentation: 3,
      result: 1,
    });
    expect(
      Object.values(steps).some((texts) => texts.some((text) => /^begin/i.test(text))),
      "no explicit transaction",
    ).toBe(false);
  });
});
