import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { didKeyIssuer } from "./support/credentials.js";
import { API_KEYS } from "./support/edges.js";
import {
  type ListeningTestVerifier,
  type OpenedSession,
  pidQuery,
  postPresentation,
  readResult,
  startListeningTestVerifier,
  type TestVerifier,
  verifierIdentity,
} from "./support/test-verifier.js";
import { presentationFor, vpTokenOf } from "./support/wallet.js";

/**
 * The verifier's database work per step of a verification (direct_post), counted at the pg pool:
 * every statement a step sends, and the trust registry calls it makes. These are the budget the
 * hack/bench README's figures come from; a step that needs one more statement should say why there.
 * The verifier runs with the process's cache invalidation listener, as a launched service does: on
 * PostgreSQL the API key's answer and the issuer's standing come from coherent caches (a barrier
 * round trip on the listening connection, not a pool statement); on PGlite they read through.
 */
describe("database statements per verification step", () => {
  let listening: ListeningTestVerifier;
  let verifier: TestVerifier;
  let invalidations: ListeningTestVerifier["invalidations"];
  let statements: ListeningTestVerifier["statements"];
  beforeAll(async () => {
    listening = await startListeningTestVerifier();
    ({ verifier, invalidations, statements } = listening);
  });
  afterAll(() => listening?.close());

  const countOf = async (step: () => Promise<unknown>) =>
    (await statements.during(step)).map((text) => text.replace(/"[a-z0-9_]+"\./g, "").slice(0, 60));

  const trustRegistryCalls = () => verifier.edges.calls.authenticateApiKey + verifier.edges.calls.getIssuerStanding;

  const verification = async (issuer: ReturnType<typeof didKeyIssuer>) => {
    const steps: Record<string, string[]> = {};
    const asked: Record<string, number> = {};
    const before = trustRegistryCalls();
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
    asked.authorizationRequest = trustRegistryCalls() - before;
    steps.requestObject = await countOf(async () => {
      const fetched = await verifier.app.inject({ method: "GET", url: `/v1/verifier/request/${requestUriId}` });
      expect(fetched.statusCode).toBe(200);
      request = decodeJwt(fetched.body) as OpenedSession["request"];
    });
    const opened = { sessionId, requestUriId, requestUri: "", authorizationRequest: "", request };
    const vp = await presentationFor(opened, { issuer });
    const beforePresentation = trustRegistryCalls();
    steps.presentation = await countOf(async () => {
      const response = await postPresentation(verifier.app, { state: opened.request.state, vp_token: vpTokenOf(vp) });
      expect(response.statusCode).toBe(200);
    });
    asked.presentation = trustRegistryCalls() - beforePresentation;
    steps.result = await countOf(async () => {
      const response = await readResult(verifier.app, opened.sessionId);
      expect(response.json().status).toBe("completed");
    });
    return { steps, asked };
  };

  it("authorization request 1, request object 1, presentation 1 (the session as created here, pending-sessions.ts, and the tenant's cached policies; then one conditional write of the outcome), result 0 (the outcome this process recorded, recorded-outcomes.ts); no explicit transaction; no trust registry call once warm (coherent caches; PGlite reads through)", async () => {
    // One issuer presented twice: the second time its standing is known.
    const issuer = didKeyIssuer(verifier.edges);
    await verification(issuer);
    const { steps, asked } = await verification(issuer);
    const coherent = invalidations.state === "coherent";
    expect(invalidations.state).toBe(process.env.DATABASE_URL ? "coherent" : "unsupported");
    expect(asked).toEqual(
      coherent ? { authorizationRequest: 0, presentation: 0 } : { authorizationRequest: 1, presentation: 1 },
    );
    const counts = Object.fromEntries(Object.entries(steps).map(([step, texts]) => [step, texts.length]));
    expect(counts, JSON.stringify(steps, null, 1)).toEqual({
      authorizationRequest: 1,
      requestObject: 1,
      // PGlite delivers no notifications: the policies are read through (the joined read made them one).
      presentation: coherent ? 1 : 2,
      result: 0,
    });
    expect(
      Object.values(steps).some((texts) => texts.some((text) => /^begin/i.test(text))),
      "no explicit transaction",
    ).toBe(false);
  });
});
