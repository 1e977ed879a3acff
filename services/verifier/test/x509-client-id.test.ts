import { createHash } from "node:crypto";
import { keysV1 } from "@attesto/proto";
import { importX509, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { didKeyIssuer, x509Hierarchy } from "./support/credentials.js";
import { API_KEYS } from "./support/edges.js";
import {
  openSession,
  pidQuery,
  postPresentation,
  readResult,
  startTestVerifier,
  type TestVerifier,
  verifierIdentity,
} from "./support/test-verifier.js";
import { presentationFor, vpTokenOf } from "./support/wallet.js";

const VERIFIER_HOST = "verifier.attesto.test";

const pem = (base64Der: string) => `-----BEGIN CERTIFICATE-----\n${base64Der}\n-----END CERTIFICATE-----`;

describe("client_id_prefix x509_hash / x509_san_dns: the tenant's verifier certificate signs", () => {
  let verifier: TestVerifier;
  let platformX5c: string[];
  let importedX5c: string[];

  beforeAll(async () => {
    verifier = await startTestVerifier();
    const ca = await x509Hierarchy("Verifier Test Root CA");
    const platform = await ca.issuer({ subjectAltNames: [{ type: "dns", value: VERIFIER_HOST }] });
    const imported = await ca.issuer({ subjectAltNames: [{ type: "dns", value: "elsewhere.example" }] });
    platformX5c = platform.header.x5c as string[];
    importedX5c = imported.header.x5c as string[];
    verifier.edges.verifierCertificates.set("acme/platform", {
      keyId: "key-platform",
      x5c: platformX5c,
      privateJwk: platform.privateJwk as unknown as Record<string, string>,
    });
    verifier.edges.verifierCertificates.set("acme/imported", {
      keyId: "key-imported",
      x5c: importedX5c,
      privateJwk: imported.privateJwk as unknown as Record<string, string>,
    });
  });
  afterAll(() => verifier.close());

  const create = (payload: Record<string, unknown>) =>
    verifier.app.inject({
      method: "POST",
      url: "/v1/verifier/authorization-request",
      headers: { "x-api-key": API_KEYS.verifier },
      payload,
    });

  const fetchRequestObject = async (requestUri: string) => {
    const response = await verifier.app.inject({ method: "GET", url: new URL(requestUri).pathname });
    expect(response.statusCode).toBe(200);
    return response.body;
  };

  it("x509_hash: client_id is the leaf's SHA-256 in the response, the link and the ES256 request object with x5c", async () => {
    const response = await create({ dcql_query: pidQuery(), client_id_prefix: "x509_hash" });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    const hash = createHash("sha256")
      .update(Buffer.from(platformX5c[0] as string, "base64"))
      .digest("base64url");
    expect(body.client_id).toBe(`x509_hash:${hash}`);
    expect(body.authorization_request).toBe(
      `openid4vp://?client_id=${encodeURIComponent(body.client_id)}&request_uri=${encodeURIComponent(body.request_uri)}`,
    );
    const jwt = await fetchRequestObject(body.request_uri);
    const key = await importX509(pem(platformX5c[0] as string), "ES256");
    const { payload, protectedHeader } = await jwtVerify(jwt, key, { typ: "oauth-authz-req+jwt" });
    expect(protectedHeader).toEqual({ alg: "ES256", typ: "oauth-authz-req+jwt", x5c: platformX5c });
    expect(payload).toMatchObject({
      client_id: body.client_id,
      response_uri: `http://${VERIFIER_HOST}/v1/verifier/presentation`,
    });
    const asked = verifier.edges.verifierCertificateRequests.at(-1);
    expect(asked).toMatchObject({
      tenant: "acme",
      host: VERIFIER_HOST,
      source: keysV1.VerifierCertificateSource.PLATFORM,
    });
  });

  it("x509_san_dns: client_id is the verifier's host, a dNSName of the leaf; the KB-JWT audience must be it", async () => {
    const session = await openSession(verifier.app, { client_id_prefix: "x509_san_dns" });
    expect(session.request.client_id).toBe(`x509_san_dns:${VERIFIER_HOST}`);
    const issuer = didKeyIssuer(verifier.edges);
    const wrongAudience = await presentationFor(session, { issuer, kb: { aud: VERIFIER_HOST } });
    await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(wrongAudience) });
    const failed = (await readResult(verifier.app, session.sessionId)).json();
    expect(failed.status).toBe("failed");
    expect(failed.check_results.find((r: { check: string }) => r.check === "holder_binding")).toMatchObject({
      status: "failed",
    });

    const second = await openSession(verifier.app, { client_id_prefix: "x509_san_dns" });
    const vp = await presentationFor(second, { issuer });
    await postPresentation(verifier.app, { state: second.request.state, vp_token: vpTokenOf(vp) });
    expect((await readResult(verifier.app, second.sessionId)).json().status).toBe("completed");
  });

  it("a prefix with a caller key or client id is a 400 naming both fields", async () => {
    const identity = verifierIdentity();
    const mixed = await create({
      dcql_query: pidQuery(),
      client_id_prefix: "x509_hash",
      verifier_private_key: identity.privateKey,
      verifier_client_id: identity.did,
    });
    expect(mixed.statusCode).toBe(400);
    const fields = mixed.json().errors.map((error: { field: string }) => error.field);
    expect(fields).toEqual(["verifier_private_key", "verifier_client_id"]);
    expect(mixed.json().message).toMatch(/verifier_private_key must not be sent with client_id_prefix/);
    const unknown = await create({ dcql_query: pidQuery(), client_id_prefix: "did" });
    expect([unknown.statusCode, unknown.json().message]).toEqual([
      400,
      "client_id_prefix must be one of x509_hash, x509_san_dns",
    ]);
    const neither = await create({ dcql_query: pidQuery() });
    expect(neither.json().errors.map((error: { field: string }) => error.field)).toEqual([
      "verifier_private_key",
      "verifier_client_id",
    ]);
  });

  it("a policy naming the imported certificate uses it; x509_san_dns needs its leaf to name the verifier's host", async () => {
    await verifier.deps.policies.apply({
      tenant: "acme",
      name: "imported-identity",
      trustedIssuerDids: [],
      trustedX509RootsDer: [],
      acceptedVcts: [],
      requiredClaims: [],
      acceptAnyIssuer: true,
      acceptUnknownStatus: false,
      verifierCertificate: "imported",
      verificationMode: undefined,
      sessionTtlSeconds: undefined,
      digest: "imported-1",
      updatedAt: new Date(),
    });
    try {
      const hashed = await create({ dcql_query: pidQuery(), client_id_prefix: "x509_hash" });
      const hash = createHash("sha256")
        .update(Buffer.from(importedX5c[0] as string, "base64"))
        .digest("base64url");
      expect(hashed.json().client_id).toBe(`x509_hash:${hash}`);
      const san = await create({ dcql_query: pidQuery(), client_id_prefix: "x509_san_dns" });
      expect(san.statusCode).toBe(400);
      expect(san.json().errors[0].field).toBe("client_id_prefix");
      const other = await verifier.app.inject({
        method: "POST",
        url: "/v1/verifier/authorization-request",
        headers: { "x-api-key": API_KEYS.otherVerifier },
        payload: { dcql_query: pidQuery(), client_id_prefix: "x509_hash" },
      });
      // globex has no verifier certificate at all in this double: custody's refusal names the field.
      expect([other.statusCode, other.json().errors[0].field]).toEqual([400, "client_id_prefix"]);
    } finally {
      await verifier.deps.policies.delete("acme", "imported-identity");
    }
  });

  describe("same-device: redirect_uri with a fresh response_code (OID4VP 1.0 §8.2)", () => {
    const completeWithRedirect = async () => {
      const session = await openSession(verifier.app, {
        client_id_prefix: "x509_hash",
        redirect_uri: "https://rp.example/done#frag",
      });
      const vp = await presentationFor(session, { issuer: didKeyIssuer(verifier.edges) });
      const answer = await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
      expect(answer.statusCode).toBe(200);
      const redirect = new URL(answer.json().redirect_uri);
      expect(`${redirect.origin}${redirect.pathname}${redirect.hash}`).toBe("https://rp.example/done#frag");
      expect(redirect.searchParams.get("session_id")).toBe(session.sessionId);
      const code = redirect.searchParams.get("response_code") as string;
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      return { session, code };
    };

    it("the result is released with the code once; a reused code, or another session's, is refused", async () => {
      const first = await completeWithRedirect();
      const second = await completeWithRedirect();
      expect(first.code).not.toBe(second.code);
      const stored = await verifier.deps.sessions.findById(first.session.sessionId);
      expect(stored?.responseCodeHash).toBe(createHash("sha256").update(first.code).digest("base64url"));

      const crossed = await readResult(verifier.app, first.session.sessionId, API_KEYS.verifier, second.code);
      expect([crossed.statusCode, crossed.json().message]).toEqual([
        400,
        "response_code is not valid for this session (wrong, already used, or not issued)",
      ]);
      expect(crossed.body).not.toContain(second.code);
      const released = await readResult(verifier.app, first.session.sessionId, API_KEYS.verifier, first.code);
      expect([released.statusCode, released.json().status]).toEqual([200, "completed"]);
      const replayed = await readResult(verifier.app, first.session.sessionId, API_KEYS.verifier, first.code);
      expect(replayed.statusCode).toBe(400);
      // The other session's own code still works: a failed attempt elsewhere does not consume it.
      const own = await readResult(verifier.app, second.session.sessionId, API_KEYS.verifier, second.code);
      expect(own.statusCode).toBe(200);
    });

    it("a session without a redirect has no code to require; a caller-key session keeps its redirect unchanged", async () => {
      const plain = await openSession(verifier.app, { client_id_prefix: "x509_hash" });
      const vp = await presentationFor(plain, { issuer: didKeyIssuer(verifier.edges) });
      const answer = await postPresentation(verifier.app, { state: plain.request.state, vp_token: vpTokenOf(vp) });
      expect(answer.json()).toEqual({});
      const noCode = await readResult(verifier.app, plain.sessionId, API_KEYS.verifier, "A".repeat(43));
      expect(noCode.statusCode).toBe(400);
      const empty = await readResult(verifier.app, plain.sessionId, API_KEYS.verifier, "");
      expect([empty.statusCode, empty.json().message]).toEqual([400, "response_code must not be empty"]);

      const keyed = await openSession(verifier.app, { redirect_uri: "https://rp.example/cb" });
      const vp2 = await presentationFor(keyed, { issuer: didKeyIssuer(verifier.edges) });
      const keyedAnswer = await postPresentation(verifier.app, {
        state: keyed.request.state,
        vp_token: vpTokenOf(vp2),
      });
      expect(keyedAnswer.json()).toEqual({ redirect_uri: `https://rp.example/cb?session_id=${keyed.sessionId}` });
    });
  });
});
