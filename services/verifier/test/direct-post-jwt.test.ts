import { CompactEncrypt, importJWK, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { didKeyIssuer, type TestIssuer } from "./support/credentials.js";
import {
  type OpenedSession,
  openSession,
  postPresentation,
  readResult,
  startTestVerifier,
  type TestVerifier,
} from "./support/test-verifier.js";
import { presentationFor } from "./support/wallet.js";

/** The encryption key a wallet takes from the request object's client_metadata.jwks. */
const encryptionJwkOf = (session: OpenedSession) =>
  (session.request.client_metadata as { jwks: { keys: JWK[] } }).jwks.keys[0]!;

async function encryptResponse(
  payload: Record<string, unknown>,
  jwk: JWK,
  options: { enc?: string; kid?: string | null; apu?: string } = {},
) {
  const key = await importJWK(jwk, "ECDH-ES");
  const kid = options.kid === undefined ? jwk.kid : options.kid;
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "ECDH-ES", enc: options.enc ?? "A128GCM", ...(kid ? { kid } : {}) })
    .setKeyManagementParameters(options.apu ? { apu: new TextEncoder().encode(options.apu) } : {})
    .encrypt(key);
}

describe("POST /v1/verifier/presentation (direct_post.jwt)", () => {
  let verifier: TestVerifier;
  let issuer: TestIssuer;
  beforeAll(async () => {
    verifier = await startTestVerifier();
    issuer = didKeyIssuer(verifier.edges);
  });
  afterAll(() => verifier.close());

  const refused = (description: RegExp) => ({
    error: "invalid_request",
    error_description: expect.stringMatching(description),
  });

  for (const enc of ["A128GCM", "A256GCM"]) {
    it(`decrypts an ${enc} response posted as response=<JWE> only, and verifies it`, async () => {
      const session = await openSession(verifier.app, {
        response_mode: "direct_post.jwt",
        redirect_uri: "https://rp.example/cb",
      });
      const vp = await presentationFor(session, { issuer });
      const jwe = await encryptResponse(
        { vp_token: { pid: [vp] }, state: session.request.state },
        encryptionJwkOf(session),
        { enc, apu: "wallet-nonce" },
      );
      const response = await postPresentation(verifier.app, { response: jwe });
      expect([response.statusCode, response.json()]).toEqual([
        200,
        { redirect_uri: `https://rp.example/cb?session_id=${session.sessionId}` },
      ]);
      const result = (await readResult(verifier.app, session.sessionId)).json();
      expect(result).toMatchObject({ status: "completed", presentation_metadata: { claims: { given_name: "Ada" } } });
    });
  }

  it("finds the session by the posted state when the JWE has no kid; honours verification_mode", async () => {
    const session = await openSession(verifier.app, { response_mode: "direct_post.jwt" });
    const vp = await presentationFor(session, { issuer, kb: { nonce: "wrong" } });
    const jwe = await encryptResponse(
      { vp_token: JSON.stringify({ pid: [vp] }), state: session.request.state },
      encryptionJwkOf(session),
      {
        kid: null,
      },
    );
    const noLocator = await postPresentation(verifier.app, { response: jwe });
    expect([noLocator.statusCode, noLocator.json()]).toEqual([400, refused(/state is required/)]);
    const response = await postPresentation(verifier.app, {
      response: jwe,
      state: session.request.state,
      verification_mode: "run_all",
    });
    expect(response.statusCode).toBe(200);
    const result = (await readResult(verifier.app, session.sessionId)).json();
    expect(result).toMatchObject({ status: "failed", verification_mode: "run_all" });
    expect(result.check_results.find((c: { check: string }) => c.check === "holder_binding")).toMatchObject({
      status: "failed",
      reason_code: "kb_jwt_nonce_mismatch",
    });
  });

  it("refuses a mismatched state, a response for another key, garbage, and a replay", async () => {
    const session = await openSession(verifier.app, { response_mode: "direct_post.jwt" });
    const other = await openSession(verifier.app, { response_mode: "direct_post.jwt" });
    const vp = await presentationFor(session, { issuer });
    const jwk = encryptionJwkOf(session);

    const wrongState = await encryptResponse({ vp_token: { pid: [vp] }, state: other.request.state }, jwk);
    const mismatch = await postPresentation(verifier.app, { response: wrongState });
    expect([mismatch.statusCode, mismatch.json()]).toEqual([400, refused(/state does not match/)]);

    const good = await encryptResponse({ vp_token: { pid: [vp] }, state: session.request.state }, jwk);
    const formStateMismatch = await postPresentation(verifier.app, { response: good, state: other.request.state });
    expect([formStateMismatch.statusCode, formStateMismatch.json()]).toEqual([400, refused(/state does not match/)]);

    // Encrypted to this session's key but labelled with another session's kid: that session cannot decrypt it.
    const misdirected = await encryptResponse({ vp_token: { pid: [vp] }, state: session.request.state }, jwk, {
      kid: encryptionJwkOf(other).kid as string,
    });
    const undecryptable = await postPresentation(verifier.app, { response: misdirected });
    expect([undecryptable.statusCode, undecryptable.json()]).toEqual([400, refused(/could not be decrypted/)]);

    const garbage = await postPresentation(verifier.app, { response: "not-a-jwe", state: session.request.state });
    expect([garbage.statusCode, garbage.json()]).toEqual([400, refused(/not a compact JWE/)]);

    const unknownKid = await encryptResponse({ vp_token: { pid: [vp] }, state: "x" }, jwk, { kid: "unknown-kid" });
    const unknown = await postPresentation(verifier.app, { response: unknownKid });
    expect([unknown.statusCode, unknown.json()]).toEqual([400, refused(/session not found or expired/)]);

    const noVpToken = await encryptResponse({ state: session.request.state }, jwk);
    const missing = await postPresentation(verifier.app, { response: noVpToken });
    expect([missing.statusCode, missing.json()]).toEqual([400, refused(/no vp_token/)]);

    expect((await postPresentation(verifier.app, { response: good })).statusCode).toBe(200);
    const replay = await postPresentation(verifier.app, { response: good });
    expect([replay.statusCode, replay.json()]).toEqual([400, refused(/already submitted/)]);
  });

  it("a direct_post session refuses an encrypted response", async () => {
    const plain = await openSession(verifier.app);
    const jwtSession = await openSession(verifier.app, { response_mode: "direct_post.jwt" });
    const jwe = await encryptResponse({ vp_token: {}, state: plain.request.state }, encryptionJwkOf(jwtSession), {
      kid: null,
    });
    const response = await postPresentation(verifier.app, { response: jwe, state: plain.request.state });
    expect([response.statusCode, response.json()]).toEqual([400, refused(/expects vp_token \(direct_post\)/)]);
  });

  it("drops the session's keys once it ends", async () => {
    const session = await openSession(verifier.app, { response_mode: "direct_post.jwt" });
    const stored = await verifier.deps.sessions.findById(session.sessionId);
    expect(stored?.signingKeyEnvelope).toMatch(/^v1\.test1\./);
    expect(stored?.encryptionKeyEnvelope).toMatch(/^v1\.test1\./);
    const vp = await presentationFor(session, { issuer });
    const jwe = await encryptResponse(
      { vp_token: { pid: [vp] }, state: session.request.state },
      encryptionJwkOf(session),
    );
    await postPresentation(verifier.app, { response: jwe });
    const ended = await verifier.deps.sessions.findById(session.sessionId);
    expect(ended).toMatchObject({
      status: "completed",
      signingKeyEnvelope: undefined,
      encryptionKeyEnvelope: undefined,
    });

    const unanswered = await openSession(verifier.app, { response_mode: "direct_post.jwt", expires_in: 60 });
    expect(await verifier.deps.sessions.dropKeysOfExpiredSessions(new Date())).toBe(0);
    expect(
      await verifier.deps.sessions.dropKeysOfExpiredSessions(new Date(Date.now() + 61_000)),
    ).toBeGreaterThanOrEqual(1);
    expect(await verifier.deps.sessions.findById(unanswered.sessionId)).toMatchObject({
      signingKeyEnvelope: undefined,
      encryptionKeyEnvelope: undefined,
    });
  });
});
