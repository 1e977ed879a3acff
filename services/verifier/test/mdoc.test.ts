import { createPrivateKey, sign } from "node:crypto";
import {
  dcApiSessionTranscript,
  oid4vpSessionTranscript,
  issueMdoc as productIssueMdoc,
  sessionTranscriptBytes,
} from "@attesto/protocol/mdoc";
import { IssuerSignedItem, DeviceResponse as OwfDeviceResponse } from "@owf/mdoc";
import { CompactEncrypt, calculateJwkThumbprint, decodeJwt, importJWK, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceResponseOf } from "../../../test/support/independent-mdoc.js";
import {
  holderKey,
  issueCredential,
  presentCredential,
  statusListToken,
  type TestIssuer,
  type X509Hierarchy,
  x509Hierarchy,
} from "./support/credentials.js";
import {
  dcApiTranscriptBytes,
  type IssuedMdoc,
  issueMdoc,
  MDL_DOCTYPE,
  MDL_NAMESPACE,
  mdlQuery,
  oid4vpTranscriptBytes,
  presentMdoc,
} from "./support/mdoc-wallet.js";
import {
  type OpenedSession,
  openSession,
  pidQuery,
  postPresentation,
  readResult,
  startTestVerifier,
  type TestVerifier,
  verifierIdentity,
} from "./support/test-verifier.js";

/**
 * mso_mdoc verification (OID4VP 1.0 Appendix B.2) with @auth0/mdl as the independent issuer and
 * wallet: mdocs signed by test certificates chained to a root the platform trusts.
 */
describe("mso_mdoc presentations (OID4VP 1.0 Appendix B.2)", () => {
  let verifier: TestVerifier;
  let pki: X509Hierarchy;
  let issuer: TestIssuer;
  let mdl: IssuedMdoc;

  beforeAll(async () => {
    verifier = await startTestVerifier();
    pki = await x509Hierarchy();
    verifier.edges.trustAnchors = [pki.rootBase64];
    issuer = await pki.issuer();
    // A chain to the platform root alone is not trusted: the issuer is an active tenant (issuer_trust).
    verifier.edges.registered.issuerUrls.add(issuer.iss);
    mdl = await issueMdoc(issuer);
  });
  afterAll(() => verifier.close());

  const submit = async (session: OpenedSession, vpToken: Record<string, string[]>) => {
    const response = await postPresentation(verifier.app, {
      state: session.request.state,
      vp_token: JSON.stringify(vpToken),
    });
    expect(response.statusCode).toBe(200);
    return (await readResult(verifier.app, session.sessionId)).json();
  };

  const failedCheck = (result: { check_results: { check: string; status: string; reason_code: string }[] }) =>
    result.check_results.find((check) => check.status === "failed");

  it("advertises mso_mdoc in vp_formats_supported and verifies an mDL disclosing age_over_18 only", async () => {
    const session = await openSession(verifier.app, { dcql_query: mdlQuery() });
    expect(session.request.client_metadata.vp_formats_supported).toMatchObject({
      mso_mdoc: {
        issuerauth_alg_values: expect.arrayContaining([-7]),
        deviceauth_alg_values: expect.arrayContaining([-7]),
      },
    });
    const result = await submit(session, { mdl: [await presentMdoc(mdl, session)] });
    expect(result.status).toBe("completed");
    expect(result.check_results.map((check: { check: string }) => check.check)).toEqual([
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
    ]);
    expect(result.check_results.find((check: { check: string }) => check.check === "revocation").reason_code).toBe(
      "no_status",
    );
    expect(result.presentation_metadata).toEqual({
      claims: { [MDL_NAMESPACE]: { age_over_18: true } },
      credential_metadata: [
        {
          issuer: issuer.iss,
          credential_type: [MDL_DOCTYPE],
          issued_at: expect.any(String),
          expires_at: expect.any(String),
        },
      ],
    });
  });

  it("accepts an encrypted response (direct_post.jwt) whose transcript names the response key's thumbprint", async () => {
    const session = await openSession(verifier.app, {
      dcql_query: mdlQuery(["given_name", "age_over_18"]),
      response_mode: "direct_post.jwt",
    });
    const jwk = (session.request.client_metadata as { jwks: { keys: JWK[] } }).jwks.keys[0]!;
    const presentation = await presentMdoc(mdl, session, {
      claims: [{ path: [MDL_NAMESPACE, "given_name"] }, { path: [MDL_NAMESPACE, "age_over_18"] }],
      jwkThumbprint: await calculateJwkThumbprint(jwk, "sha256"),
    });
    const jwe = await new CompactEncrypt(
      new TextEncoder().encode(JSON.stringify({ vp_token: { mdl: [presentation] }, state: session.request.state })),
    )
      .setProtectedHeader({ alg: "ECDH-ES", enc: "A128GCM", kid: jwk.kid! })
      .encrypt(await importJWK(jwk, "ECDH-ES"));
    expect((await postPresentation(verifier.app, { response: jwe })).statusCode).toBe(200);
    const result = (await readResult(verifier.app, session.sessionId)).json();
    expect([result.status, failedCheck(result)]).toEqual(["completed", undefined]);
    expect(result.presentation_metadata.claims).toEqual({ [MDL_NAMESPACE]: { given_name: "Ada", age_over_18: true } });
  });

  it("trusted_authorities aki: an mdoc whose x5chain has the named AuthorityKeyIdentifier passes, another is untrusted_issuer", async () => {
    const byAki = mdlQuery(["age_over_18"], {
      trusted_authorities: [{ type: "aki", values: [pki.rootKeyIdentifier] }],
    });
    const trusted = await openSession(verifier.app, { dcql_query: byAki });
    const passed = await submit(trusted, { mdl: [await presentMdoc(mdl, trusted)] });
    expect([passed.status, failedCheck(passed)]).toEqual(["completed", undefined]);
    expect(
      passed.check_results.find((check: { check: string }) => check.check === "trusted_authorities"),
    ).toMatchObject({
      status: "success",
      reason_code: "trusted",
    });
    const wrongAki = mdlQuery(["age_over_18"], { trusted_authorities: [{ type: "aki", values: ["AAAA"] }] });
    const other = await openSession(verifier.app, { dcql_query: wrongAki });
    const refused = await submit(other, { mdl: [await presentMdoc(mdl, other)] });
    expect([refused.status, failedCheck(refused)]).toEqual([
      "failed",
      expect.objectContaining({ check: "trusted_authorities", reason_code: "untrusted_issuer" }),
    ]);
  });

  it("verifies an SD-JWT VC and an mdoc presented for one query", async () => {
    const query = { credentials: [...pidQuery().credentials, ...mdlQuery().credentials] };
    const session = await openSession(verifier.app, { dcql_query: query });
    const holder = holderKey();
    const credential = await issueCredential({ issuer, holder });
    const sdJwt = await presentCredential(credential, { given_name: true, family_name: true }, holder, {
      aud: session.request.client_id,
      nonce: session.request.nonce,
    });
    const result = await submit(session, { pid: [sdJwt], mdl: [await presentMdoc(mdl, session)] });
    expect([result.status, failedCheck(result)]).toEqual(["completed", undefined]);
    expect(result.presentation_metadata.claims).toMatchObject({
      given_name: "Ada",
      family_name: "Lovelace",
      [MDL_NAMESPACE]: { age_over_18: true },
    });
    expect(result.presentation_metadata.credential_metadata).toHaveLength(2);
  });

  it("verifies a PID mdoc (eu.europa.ec.eudi.pid.1) disclosing only the asked elements", async () => {
    const PID = "eu.europa.ec.eudi.pid.1";
    const pid = await issueMdoc(issuer, {
      docType: PID,
      namespace: PID,
      elements: {
        family_name: "Lovelace",
        given_name: "Ada",
        birth_date: "1815-12-10",
        age_over_18: true,
        nationality: "GB",
      },
    });
    const query = {
      credentials: [
        {
          id: "pid",
          format: "mso_mdoc",
          meta: { doctype_value: PID },
          claims: [{ path: [PID, "family_name"] }, { path: [PID, "age_over_18"] }],
        },
      ],
    };
    const session = await openSession(verifier.app, { dcql_query: query });
    const presentation = await presentMdoc(pid, session, {
      docType: PID,
      claims: [{ path: [PID, "family_name"] }, { path: [PID, "age_over_18"] }],
    });
    const result = await submit(session, { pid: [presentation] });
    expect([result.status, failedCheck(result)]).toEqual(["completed", undefined]);
    expect(result.presentation_metadata.claims).toEqual({ [PID]: { family_name: "Lovelace", age_over_18: true } });
  });

  it("verifies an mdoc issued by the product's issueMdoc (x5chain, status reference) presented by @auth0/mdl", async () => {
    const uri = "https://issuer.attesto.test/status-lists/acme/product-list";
    verifier.edges.statusLists.set(uri, await statusListToken(issuer, { uri, statuses: [0], iss: issuer.iss }));
    const holder = holderKey();
    const signingKey = createPrivateKey({ key: issuer.privateJwk as never, format: "jwk" });
    const now = Date.now();
    const issuerSigned = await productIssueMdoc({
      docType: MDL_DOCTYPE,
      namespaces: { [MDL_NAMESPACE]: { given_name: "Ada", age_over_18: true } },
      deviceKey: { ...holder.publicJwk },
      validity: {
        signed: new Date(now - 60_000),
        validFrom: new Date(now - 60_000),
        validUntil: new Date(now + 86_400_000),
      },
      status: { idx: 0, uri },
      certificates: (issuer.header.x5c as string[]).map((der) => new Uint8Array(Buffer.from(der, "base64"))),
      algorithm: "ES256",
      sign: async (toBeSigned) =>
        new Uint8Array(sign("sha256", toBeSigned, { key: signingKey, dsaEncoding: "ieee-p1363" })),
    });
    // @auth0/mdl presents it: its MDoc wraps the IssuerSigned in a document.
    const issued: IssuedMdoc = { mdoc: Buffer.from(deviceResponseOf(MDL_DOCTYPE, issuerSigned)), holder };
    const session = await openSession(verifier.app, { dcql_query: mdlQuery() });
    const result = await submit(session, { mdl: [await presentMdoc(issued, session)] });
    expect([result.status, failedCheck(result)]).toEqual(["completed", undefined]);
    expect(result.check_results.find((check: { check: string }) => check.check === "revocation")).toMatchObject({
      status: "success",
      reason_code: "valid",
    });
    expect(result.presentation_metadata.claims).toEqual({ [MDL_NAMESPACE]: { age_over_18: true } });
  });

  it("computes the OpenID4VPHandover and OpenID4VPDCAPIHandover transcripts as the specification's CDDL gives them", async () => {
    const jwk = {
      kty: "EC",
      crv: "P-256",
      x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
      y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
    };
    const thumbprint = await calculateJwkThumbprint(jwk, "sha256");
    for (const encrypted of [false, true]) {
      const ours = await oid4vpSessionTranscript({
        clientId: "x509_hash:abc",
        nonce: "nonce-1",
        responseUri: "https://verifier.example/v1/verifier/presentation",
        ...(encrypted ? { responseEncryptionJwk: jwk } : {}),
      });
      const independent = oid4vpTranscriptBytes({
        clientId: "x509_hash:abc",
        nonce: "nonce-1",
        responseUri: "https://verifier.example/v1/verifier/presentation",
        ...(encrypted ? { jwkThumbprint: thumbprint } : {}),
      });
      expect(Buffer.from(sessionTranscriptBytes(ours)).toString("hex")).toBe(independent.toString("hex"));
      const dcApi = await dcApiSessionTranscript({
        origin: "https://rp.example",
        nonce: "nonce-1",
        ...(encrypted ? { responseEncryptionJwk: jwk } : {}),
      });
      const dcApiIndependent = dcApiTranscriptBytes({
        origin: "https://rp.example",
        nonce: "nonce-1",
        ...(encrypted ? { jwkThumbprint: thumbprint } : {}),
      });
      expect(Buffer.from(sessionTranscriptBytes(dcApi)).toString("hex")).toBe(dcApiIndependent.toString("hex"));
    }
  });

  it("rejects mso_mdoc queries without meta.doctype_value or with a path that is not [namespace, element]", async () => {
    for (const [credential, field] of [
      [{ meta: {} }, "dcql_query.credentials.0.meta.doctype_value"],
      [{ claims: [{ path: [MDL_NAMESPACE] }] }, "dcql_query.credentials.0.claims.0.path"],
      [
        { claims: [{ path: [MDL_NAMESPACE, "age_over_18"], intent_to_retain: "yes" }] },
        "dcql_query.credentials.0.claims.0.intent_to_retain",
      ],
    ] as const) {
      const response = await verifier.app.inject({
        method: "POST",
        url: "/v1/verifier/authorization-request",
        headers: { "x-api-key": "key-verifier-acme" },
        payload: {
          dcql_query: mdlQuery(["age_over_18"], credential),
          verifier_private_key: "A".repeat(43),
          verifier_client_id: "https://rp.example",
        },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().errors.map((error: { field: string }) => error.field)).toContain(field);
    }
  });

  describe("through the Digital Credentials API (OpenID4VPDCAPIHandover)", () => {
    const RP = "https://rp.example";

    /** A DC API session as the RP creates it; what the page hands the browser is `dc_api_request.data`. */
    const openDcApi = async (body: Record<string, unknown>) => {
      const created = await verifier.app.inject({
        method: "POST",
        url: "/v1/verifier/authorization-request",
        headers: { "x-api-key": "key-verifier-acme" },
        payload: { dcql_query: mdlQuery(), expected_origins: [RP], ...body },
      });
      expect(created.statusCode, created.body).toBe(201);
      const { session_id, dc_api_request } = created.json();
      const data = dc_api_request.data as Record<string, unknown>;
      const request = (typeof data.request === "string" ? decodeJwt(data.request) : data) as {
        nonce: string;
        client_metadata: { jwks?: { keys: JWK[] } };
      };
      // The wallet library presents against an OpenedSession; only the transcript below is used.
      const session = { sessionId: session_id, request } as unknown as OpenedSession;
      return { sessionId: session_id as string, request, session };
    };

    const submitDcApi = async (sessionId: string, data: Record<string, unknown>) => {
      const response = await verifier.app.inject({
        method: "POST",
        url: `/v1/verifier/dc-api/${sessionId}`,
        headers: { origin: RP },
        payload: { data },
      });
      expect([response.statusCode, response.json()]).toEqual([200, {}]);
      return (await readResult(verifier.app, sessionId)).json();
    };

    it("dc_api: a device signature over the DC API handover (origin, nonce) completes; only age_over_18 disclosed", async () => {
      const { sessionId, request, session } = await openDcApi({ response_mode: "dc_api" });
      const presentation = await presentMdoc(mdl, session, {
        transcript: dcApiTranscriptBytes({ origin: RP, nonce: request.nonce }),
      });
      const result = await submitDcApi(sessionId, { vp_token: { mdl: [presentation] } });
      expect([result.status, failedCheck(result)]).toEqual(["completed", undefined]);
      expect(result.presentation_metadata.claims).toEqual({ [MDL_NAMESPACE]: { age_over_18: true } });
    });

    it("dc_api.jwt (signed request): the DC API handover names the response key's thumbprint", async () => {
      const identity = verifierIdentity();
      const { sessionId, request, session } = await openDcApi({
        response_mode: "dc_api.jwt",
        verifier_private_key: identity.privateKey,
        verifier_client_id: identity.did,
      });
      const jwk = request.client_metadata.jwks!.keys[0]!;
      const presentation = await presentMdoc(mdl, session, {
        transcript: dcApiTranscriptBytes({
          origin: RP,
          nonce: request.nonce,
          jwkThumbprint: await calculateJwkThumbprint(jwk, "sha256"),
        }),
      });
      const response = await new CompactEncrypt(
        new TextEncoder().encode(JSON.stringify({ vp_token: { mdl: [presentation] } })),
      )
        .setProtectedHeader({ alg: "ECDH-ES", enc: "A256GCM", kid: jwk.kid! })
        .encrypt(await importJWK(jwk, "ECDH-ES"));
      const result = await submitDcApi(sessionId, { response });
      expect([result.status, failedCheck(result)]).toEqual(["completed", undefined]);
    });

    it("refused there: a device signature over the redirect handover, another origin, or no thumbprint under dc_api.jwt", async () => {
      const redirect = await openDcApi({ response_mode: "dc_api" });
      const overRedirect = await presentMdoc(mdl, redirect.session, {
        transcript: oid4vpTranscriptBytes({
          clientId: `origin:${RP}`,
          nonce: redirect.request.nonce,
          responseUri: `${RP}/v1/verifier/dc-api/${redirect.sessionId}`,
        }),
      });
      const refused = await submitDcApi(redirect.sessionId, { vp_token: { mdl: [overRedirect] } });
      expect([refused.status, failedCheck(refused)]).toEqual([
        "failed",
        expect.objectContaining({ check: "holder_binding", reason_code: "device_signature_invalid" }),
      ]);
      const otherOrigin = await openDcApi({ response_mode: "dc_api" });
      const forEvil = await presentMdoc(mdl, otherOrigin.session, {
        transcript: dcApiTranscriptBytes({ origin: "https://evil.example", nonce: otherOrigin.request.nonce }),
      });
      const evil = await submitDcApi(otherOrigin.sessionId, { vp_token: { mdl: [forEvil] } });
      expect(failedCheck(evil)).toMatchObject({ check: "holder_binding", reason_code: "device_signature_invalid" });
      const identity = verifierIdentity();
      const encrypted = await openDcApi({
        response_mode: "dc_api.jwt",
        verifier_private_key: identity.privateKey,
        verifier_client_id: identity.did,
      });
      const jwk = encrypted.request.client_metadata.jwks!.keys[0]!;
      const withoutThumbprint = await presentMdoc(mdl, encrypted.session, {
        transcript: dcApiTranscriptBytes({ origin: RP, nonce: encrypted.request.nonce }),
      });
      const response = await new CompactEncrypt(
        new TextEncoder().encode(JSON.stringify({ vp_token: { mdl: [withoutThumbprint] } })),
      )
        .setProtectedHeader({ alg: "ECDH-ES", enc: "A256GCM", kid: jwk.kid! })
        .encrypt(await importJWK(jwk, "ECDH-ES"));
      const unbound = await submitDcApi(encrypted.sessionId, { response });
      expect(failedCheck(unbound)).toMatchObject({ check: "holder_binding", reason_code: "device_signature_invalid" });
    });
  });

  describe("hostile presentations fail with a named check", () => {
    /** Re-encodes a DeviceResponse after `change` altered its (library-decoded) document. */
    const tamper = (presentation: string, change: (items: IssuerSignedItem[]) => void) => {
      const response = OwfDeviceResponse.fromEncodedForOid4Vp(presentation);
      const items = response.documents![0]!.issuerSigned.issuerNamespaces.issuerNamespaces.get(MDL_NAMESPACE)!;
      change(items);
      return response.encodedForOid4Vp;
    };

    const expectFailure = async (
      query: Record<string, unknown>,
      vpToken: Record<string, string[]>,
      session: OpenedSession,
      check: string,
      reason: string,
    ) => {
      const result = await submit(session, vpToken);
      expect(result.status).toBe("failed");
      expect(failedCheck(result)).toMatchObject({ check, reason_code: reason });
      return { query, result };
    };

    it("a tampered element value: issuer_signature digest_mismatch", async () => {
      const session = await openSession(verifier.app, { dcql_query: mdlQuery(["family_name"]) });
      const honest = await presentMdoc(mdl, session, { claims: [{ path: [MDL_NAMESPACE, "family_name"] }] });
      const forged = tamper(honest, ([item]) => {
        (item as unknown as { structure: Map<string, unknown> }).structure.set("elementValue", "Byron");
      });
      await expectFailure({}, { mdl: [forged] }, session, "issuer_signature", "digest_mismatch");
    });

    it("an element not in the MSO: issuer_signature element_not_in_mso", async () => {
      const session = await openSession(verifier.app, { dcql_query: mdlQuery() });
      const honest = await presentMdoc(mdl, session);
      const forged = tamper(honest, (items) => {
        items.push(
          IssuerSignedItem.fromOptions({
            digestId: 4242,
            random: new Uint8Array(16),
            elementIdentifier: "age_over_65",
            elementValue: true,
          }),
        );
      });
      await expectFailure({}, { mdl: [forged] }, session, "issuer_signature", "element_not_in_mso");
    });

    it("a wrong doctype: vct doctype_mismatch", async () => {
      const pid = await issueMdoc(issuer, {
        docType: "eu.europa.ec.eudi.pid.1",
        namespace: "eu.europa.ec.eudi.pid.1",
        elements: { age_over_18: true },
      });
      const session = await openSession(verifier.app, { dcql_query: mdlQuery() });
      const presentation = await presentMdoc(pid, session, {
        docType: "eu.europa.ec.eudi.pid.1",
        claims: [{ path: ["eu.europa.ec.eudi.pid.1", "age_over_18"] }],
      });
      await expectFailure({}, { mdl: [presentation] }, session, "vct", "doctype_mismatch");
    });

    it("an expired MSO: validity expired", async () => {
      const signed = new Date(Date.now() - 3 * 24 * 3600_000);
      const expired = await issueMdoc(issuer, { signed, validUntil: new Date(Date.now() - 24 * 3600_000) });
      const session = await openSession(verifier.app, { dcql_query: mdlQuery() });
      await expectFailure({}, { mdl: [await presentMdoc(expired, session)] }, session, "validity", "expired");
    });

    it("a device signature over another session's transcript (replay): holder_binding device_signature_invalid", async () => {
      const first = await openSession(verifier.app, { dcql_query: mdlQuery() });
      const second = await openSession(verifier.app, { dcql_query: mdlQuery() });
      const forFirst = await presentMdoc(mdl, first);
      await expectFailure({}, { mdl: [forFirst] }, second, "holder_binding", "device_signature_invalid");
      // The same nonce to another verifier (client_id) does not verify either.
      const third = await openSession(verifier.app, { dcql_query: mdlQuery() });
      const otherVerifier = await presentMdoc(mdl, third, {
        transcript: oid4vpTranscriptBytes({
          clientId: "x509_hash:another-verifier",
          nonce: third.request.nonce,
          responseUri: third.request.response_uri,
        }),
      });
      await expectFailure({}, { mdl: [otherVerifier] }, third, "holder_binding", "device_signature_invalid");
    });

    it("a device signature by another key than the MSO's: holder_binding device_signature_invalid", async () => {
      const session = await openSession(verifier.app, { dcql_query: mdlQuery() });
      const presentation = await presentMdoc(mdl, session, { deviceKey: holderKey().privateJwk });
      await expectFailure({}, { mdl: [presentation] }, session, "holder_binding", "device_signature_invalid");
    });

    it("an untrusted or self-made issuer chain: issuer_signature untrusted_certificate_chain", async () => {
      const otherPki = await x509Hierarchy("Someone Else's Root CA");
      const untrusted = await issueMdoc(await otherPki.issuer());
      const session = await openSession(verifier.app, { dcql_query: mdlQuery() });
      await expectFailure(
        {},
        { mdl: [await presentMdoc(untrusted, session)] },
        session,
        "issuer_signature",
        "untrusted_certificate_chain",
      );
      // A self-made chain naming the trusted root's subject, signed by the forger's own keys.
      const forgedPki = await x509Hierarchy("Attesto Test Root CA");
      const forged = await issueMdoc(await forgedPki.issuer());
      const another = await openSession(verifier.app, { dcql_query: mdlQuery() });
      await expectFailure(
        {},
        { mdl: [await presentMdoc(forged, another)] },
        another,
        "issuer_signature",
        "untrusted_certificate_chain",
      );
    });

    it("a revoked mdoc: revocation revoked (and a valid one passes)", async () => {
      const uri = "https://issuer.attesto.test/status-lists/acme/mdoc-list";
      verifier.edges.statusLists.set(uri, await statusListToken(issuer, { uri, statuses: [0, 1], iss: issuer.iss }));
      const valid = await issueMdoc(issuer, { status: { idx: 0, uri } });
      const revoked = await issueMdoc(issuer, { status: { idx: 1, uri } });
      const first = await openSession(verifier.app, { dcql_query: mdlQuery() });
      const passed = await submit(first, { mdl: [await presentMdoc(valid, first)] });
      expect(passed.status).toBe("completed");
      expect(passed.check_results.find((check: { check: string }) => check.check === "revocation")).toMatchObject({
        status: "success",
        reason_code: "valid",
      });
      const second = await openSession(verifier.app, { dcql_query: mdlQuery() });
      await expectFailure({}, { mdl: [await presentMdoc(revoked, second)] }, second, "revocation", "revoked");
    });

    it("not a DeviceResponse: sd_jwt_structure malformed_device_response", async () => {
      const session = await openSession(verifier.app, { dcql_query: mdlQuery() });
      await expectFailure({}, { mdl: ["bm90LWNib3I"] }, session, "sd_jwt_structure", "malformed_device_response");
    });
  });
});
