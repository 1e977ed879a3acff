import { randomUUID } from "node:crypto";
import { parseSdJwtPresentation } from "@attesto/protocol";
import { invalidFieldsBody } from "@attesto/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ed25519DidKey, type HolderIdentity, ledgerDid, p256DidKey } from "./support/holder-keys.js";
import {
  BADGE_VCT,
  DIPLOMA_VCT,
  diplomaClaims,
  type IssuerDouble,
  startIssuerDouble,
} from "./support/issuer-double.js";
import { type Account, startTestHolder, type TestHolder } from "./support/test-holder.js";
import { type RequestOptions, startVerifierDouble, type VerifierDouble } from "./support/verifier-double.js";

/** The claims a presentation disclosed: its processed payload without the SD-JWT VC's own claims. */
const disclosed = ({
  iss: _iss,
  iat: _iat,
  nbf: _nbf,
  exp: _exp,
  vct: _vct,
  cnf: _cnf,
  status: _status,
  ...rest
}: Record<string, unknown>) => rest;

const diplomaQuery = (claims?: unknown[]) => ({
  credentials: [
    {
      id: "diploma",
      format: "dc+sd-jwt",
      meta: { vct_values: [DIPLOMA_VCT] },
      ...(claims ? { claims } : { claims: [{ path: ["given_name"] }, { path: ["degree", "name"] }] }),
    },
  ],
});

describe("OID4VP: request-details and presentation against a verifier that is not Attesto's", () => {
  let holder: TestHolder;
  let issuer: IssuerDouble;
  let verifier: VerifierDouble;
  let account: Account;
  let identity: HolderIdentity;
  let diplomaId: string;
  let badgeId: string;

  async function receive(who: Account, holderIdentity: HolderIdentity, configuration = "diploma") {
    const response = await holder.app.inject({
      method: "POST",
      url: "/v1/oid4vci/receive",
      headers: who.headers,
      payload: {
        credential_offer_uri: issuer.offer({ configurationIds: [configuration] }).link,
        holder_did: holderIdentity.did,
        private_key: holderIdentity.privateKey,
        notarize_on_ledger: false,
      },
    });
    if (response.statusCode !== 201) throw new Error(response.body);
    return response.json().credential_id as string;
  }

  beforeAll(async () => {
    holder = await startTestHolder();
    issuer = await startIssuerDouble(holder.ledger);
    verifier = await startVerifierDouble(holder.ledger);
    account = await holder.account();
    identity = ed25519DidKey();
    diplomaId = await receive(account, identity);
    badgeId = await receive(account, identity, "badge");
  });
  afterAll(async () => {
    await verifier.close();
    await issuer.close();
    await holder.close();
  });
  beforeEach(() => {
    holder.ledger.down = false;
  });

  const requestDetails = (link: string, who: Account = account) =>
    holder.app.inject({
      method: "POST",
      url: "/v1/oid4vp/request-details",
      headers: who.headers,
      payload: { authorization_request_uri: link },
    });
  const present = (payload: Record<string, unknown>, who: Account = account) =>
    holder.app.inject({ method: "POST", url: "/v1/oid4vp/presentation", headers: who.headers, payload });
  const presentation = (link: string, selected: unknown[], who: HolderIdentity = identity) => ({
    authorization_request_uri: link,
    selected_credentials: selected,
    holder_did: who.did,
    private_key: who.privateKey,
  });

  describe("POST /v1/oid4vp/request-details", () => {
    it("verifies the request object and matches the DCQL query to the holder's credentials (shape in this service's README)", async () => {
      const request = verifier.createRequest({ dcqlQuery: diplomaQuery() });
      const response = await requestDetails(request.link);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        client_id: request.clientId,
        client_metadata: {
          client_name: "Acme Rentals",
          vp_formats_supported: {
            "dc+sd-jwt": { "sd-jwt_alg_values": ["ES256", "EdDSA"], "kb-jwt_alg_values": ["ES256", "EdDSA"] },
          },
        },
        dcql_query: diplomaQuery(),
        matching_credentials: [
          {
            credential_id: diplomaId,
            query_id: "diploma",
            vct: DIPLOMA_VCT,
            claims: { given_name: "Ada", degree: { name: "Mathematics" } },
            credential_status: "no_status",
          },
        ],
        excluded_credentials: [],
        nonce: request.nonce,
        state: request.state,
        response_mode: "direct_post",
        response_uri: `${verifier.baseUrl}/response`,
        expires_at: expect.stringMatching(/Z$/),
      });
      expect(verifier.submissions.filter((s) => s.requestId === request.id)).toEqual([]);

      // The verifier's own field name is accepted too (alone, or equal to the other); differing ones are not.
      const send = (payload: Record<string, unknown>) =>
        holder.app.inject({ method: "POST", url: "/v1/oid4vp/request-details", headers: account.headers, payload });
      const viaAlias = await send({ authorization_request: request.link });
      expect([viaAlias.statusCode, viaAlias.json().nonce]).toEqual([200, request.nonce]);
      const both = await send({ authorization_request: request.link, authorization_request_uri: request.link });
      expect(both.statusCode).toBe(200);
      const differing = await send({ authorization_request: request.link, authorization_request_uri: "openid4vp://x" });
      expect([differing.statusCode, differing.json()]).toEqual([
        400,
        {
          error: "invalid_request",
          message: "authorization_request must equal authorization_request_uri when both are given",
          errors: [
            { field: "authorization_request", message: "must equal authorization_request_uri when both are given" },
          ],
        },
      ]);
    });

    it("a query without claims matches with all claims; vct_values filter; claim values filter", async () => {
      const all = await requestDetails(
        verifier.createRequest({
          dcqlQuery: {
            credentials: [{ id: "any", format: "dc+sd-jwt", meta: { vct_values: [DIPLOMA_VCT, BADGE_VCT] } }],
          },
        }).link,
      );
      expect(
        all
          .json()
          .matching_credentials.map((m: { credential_id: string }) => m.credential_id)
          .sort(),
      ).toEqual([diplomaId, badgeId].sort());
      expect(all.json().matching_credentials.find((m: { vct: string }) => m.vct === DIPLOMA_VCT).claims).toEqual(
        diplomaClaims,
      );
      const values = await requestDetails(
        verifier.createRequest({ dcqlQuery: diplomaQuery([{ path: ["given_name"], values: ["Grace"] }]) }).link,
      );
      expect(values.json().matching_credentials).toEqual([]);
      const none = await requestDetails(
        verifier.createRequest({
          dcqlQuery: { credentials: [{ id: "pid", format: "dc+sd-jwt", meta: { vct_values: ["https://other/pid"] } }] },
        }).link,
      );
      expect(none.statusCode).toBe(200);
      expect(none.json().matching_credentials).toEqual([]);
    });

    it("trusted_authorities of type did filter by the issuer DID", async () => {
      const query = (did: string) => ({
        credentials: [
          {
            id: "d",
            format: "dc+sd-jwt",
            meta: { vct_values: [DIPLOMA_VCT] },
            trusted_authorities: [{ type: "did", values: [did] }],
          },
        ],
      });
      const trusted = await requestDetails(verifier.createRequest({ dcqlQuery: query(issuer.issuerDid()) }).link);
      expect(trusted.json().matching_credentials).toHaveLength(1);
      const untrusted = await requestDetails(verifier.createRequest({ dcqlQuery: query("did:key:z6MkOther") }).link);
      expect(untrusted.json().matching_credentials).toEqual([]);
    });

    it("only the caller's credentials match", async () => {
      const other = await holder.account();
      const response = await requestDetails(verifier.createRequest({ dcqlQuery: diplomaQuery() }).link, other);
      expect(response.json().matching_credentials).toEqual([]);
    });

    it.each(["did:ledger", "x509_san_dns", "x509_hash", "url"] as const)(
      "accepts a %s client_id",
      async (clientIdKind) => {
        const request = verifier.createRequest({ dcqlQuery: diplomaQuery(), clientIdKind });
        const response = await requestDetails(request.link);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().client_id).toBe(request.clientId);
      },
    );

    it("a bare request URI (no openid4vp:// link): the signed request object names the client_id", async () => {
      const request = verifier.createRequest({ dcqlQuery: diplomaQuery() });
      const response = await requestDetails(`${verifier.baseUrl}/requests/${request.id}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().client_id).toBe(request.clientId);
      const tampered = verifier.createRequest({ dcqlQuery: diplomaQuery(), tamper: "signature" });
      const refused = await requestDetails(`${verifier.baseUrl}/requests/${tampered.id}`);
      expect(refused.json()).toEqual({
        error: "invalid_authorization_request",
        message: "the request object's signature does not verify",
      });
    });

    it("request_uri_method=post: the request object is POSTed for and must echo the wallet_nonce", async () => {
      const request = verifier.createRequest({ dcqlQuery: diplomaQuery(), requestUriMethod: "post" });
      const response = await requestDetails(request.link);
      expect(response.statusCode).toBe(200);
      expect(verifier.fetches.at(-1)).toBe(`POST /requests/${request.id}`);
    });

    it.each([
      ["a bad signature", { tamper: "signature" }, "the request object's signature does not verify"],
      ["a wrong typ", { tamper: "typ" }, "the request object's typ must be oauth-authz-req+jwt"],
      ["a wrong aud", { tamper: "aud" }, "the request object's aud must be https://self-issued.me/v2"],
      [
        "another client_id inside",
        { tamper: "client_id" },
        "the request object's client_id is not the client_id of the link",
      ],
      ["an expired request", { tamper: "expired" }, "the authorization request has expired"],
      [
        "an unsupported response_mode",
        { tamper: "response_mode" },
        "the response_mode is not supported (direct_post, direct_post.jwt)",
      ],
      [
        "no dcql_query",
        { tamper: "no_dcql" },
        "the request object is invalid: dcql_query is required (presentation_definition is not supported)",
      ],
      ["a kid of another DID", { tamper: "kid" }, "the request object's kid is not a key of the client_id DID"],
      [
        "a URL client_id on another origin than response_uri",
        { clientIdKind: "foreign_url" },
        "response_uri must be on the origin of the URL client_id",
      ],
      [
        "a URL client_id without a jwk header",
        { clientIdKind: "url", tamper: "no_jwk" },
        "the request object of a URL client_id must carry its public key as jwk",
      ],
      [
        "a URL client_id signed by another key",
        { clientIdKind: "url", tamper: "signature" },
        "the request object's signature does not verify",
      ],
      [
        "an expired session (404 at the request URI)",
        { requestStatus: 404 },
        "the authorization request is unknown or has expired (the verifier answered 404)",
      ],
      [
        "an invalid DCQL query",
        { dcqlQuery: { credentials: [] } },
        "dcql_query is invalid: Array must be non-empty and have length of at least 1",
      ],
    ] as Array<[string, Partial<RequestOptions>, string]>)("400 for %s", async (_label, options, message) => {
      const response = await requestDetails(verifier.createRequest({ dcqlQuery: diplomaQuery(), ...options }).link);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: "invalid_authorization_request",
        message,
      });
    });

    it.each([
      ["not a link", "nope"],
      ["another scheme", "openid-credential-offer://?credential_offer_uri=x"],
      ["no client_id", "openid4vp://?request_uri=https%3A%2F%2Fv.example%2Fr"],
      ["an unsigned request", "openid4vp://?client_id=x&response_type=vp_token"],
      [
        "an unsupported client_id prefix",
        `openid4vp://?client_id=redirect_uri%3Ahttps%3A%2F%2Fv.example&request_uri=http%3A%2F%2F127.0.0.1%3A1%2Fr`,
      ],
    ])("400 for %s", async (_label, link) => {
      const response = await requestDetails(link);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe("invalid_authorization_request");
    });
  });

  describe("POST /v1/oid4vp/presentation", () => {
    it("direct_post: only the chosen claims are disclosed; the KB-JWT binds aud = client_id, nonce, sd_hash", async () => {
      const request = verifier.createRequest({
        dcqlQuery: diplomaQuery(),
        redirectUri: "https://rentals.example/done",
      });
      const response = await present(
        presentation(request.link, [
          { credential_id: diplomaId, query_id: "diploma", disclosed_claims: ["given_name", "degree.name"] },
        ]),
      );
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ success: true, redirect_uri: `https://rentals.example/done?id=${request.id}` });
      const submission = verifier.submissions.find((s) => s.requestId === request.id)!;
      expect(submission).toEqual({
        requestId: request.id,
        mode: "direct_post",
        state: request.state,
        claims: { diploma: [expect.any(Object)] },
        presentations: { diploma: [expect.any(String)] },
        problems: [],
      });
      expect(disclosed(submission.claims.diploma![0]!)).toEqual({ given_name: "Ada", degree: { name: "Mathematics" } });
      // Exactly the two needed disclosures plus the parent object (degree).
      expect(
        parseSdJwtPresentation(submission.presentations.diploma![0]!)
          .disclosures.map((d) => d.name)
          .sort(),
      ).toEqual(["degree", "given_name", "name"]);
    });

    it("disclosed_claims omitted discloses every claim; no redirect_uri when the verifier has none", async () => {
      const request = verifier.createRequest({ dcqlQuery: diplomaQuery() });
      const response = await present(presentation(request.link, [{ credential_id: diplomaId, query_id: "diploma" }]));
      expect(response.json()).toEqual({ success: true });
      const submission = verifier.submissions.find((s) => s.requestId === request.id)!;
      expect(submission.problems).toEqual([]);
      const { cnf: _cnf, iss: _iss, iat: _iat, exp: _exp, vct: _vct, ...claims } = submission.claims.diploma![0]!;
      expect(claims).toEqual(diplomaClaims);
    });

    it("a URL client_id (response_uri on its origin): the KB-JWT aud is that URL", async () => {
      const request = verifier.createRequest({ dcqlQuery: diplomaQuery(), clientIdKind: "url" });
      expect(request.clientId).toBe(verifier.baseUrl);
      const response = await present(presentation(request.link, [{ credential_id: diplomaId, query_id: "diploma" }]));
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ success: true });
      expect(verifier.submissions.find((s) => s.requestId === request.id)?.problems).toEqual([]);
    });

    it("array elements and whole objects can be disclosed by path", async () => {
      const request = verifier.createRequest({ dcqlQuery: diplomaQuery([{ path: ["courses", null, "title"] }]) });
      const response = await present(
        presentation(request.link, [
          { credential_id: diplomaId, query_id: "diploma", disclosed_claims: ["courses.1", '["degree"]'] },
        ]),
      );
      expect(response.statusCode).toBe(200);
      const claims = verifier.submissions.find((s) => s.requestId === request.id)!.claims.diploma![0]!;
      // The issuer made each course's members disclosable, not the array elements themselves.
      expect(claims.courses).toEqual([{}, { title: "Algebra" }]);
      expect(claims.degree).toEqual(diplomaClaims.degree);
    });

    it.each(["A128GCM", "A256GCM"])(
      "direct_post.jwt: the response is a JWE (ECDH-ES, %s) to the verifier's key",
      async (enc) => {
        const request = verifier.createRequest({
          dcqlQuery: diplomaQuery(),
          responseMode: "direct_post.jwt",
          encValues: [enc],
        });
        const response = await present(
          presentation(request.link, [
            { credential_id: diplomaId, query_id: "diploma", disclosed_claims: ["given_name"] },
          ]),
        );
        expect(response.statusCode, response.body).toBe(200);
        const submission = verifier.submissions.find((s) => s.requestId === request.id)!;
        expect(submission).toEqual({
          requestId: request.id,
          mode: "direct_post.jwt",
          enc,
          state: request.state,
          claims: { diploma: [expect.any(Object)] },
          presentations: { diploma: [expect.any(String)] },
          problems: [],
        });
        expect(disclosed(submission.claims.diploma![0]!)).toEqual({ given_name: "Ada" });
      },
    );

    it("two credential queries answered at once; a did:ledger and a P-256 holder sign their KB-JWTs", async () => {
      const ledgerHolder = await ledgerDid(holder.app, account);
      const p256Holder = p256DidKey();
      const ledgerDiploma = await receive(account, ledgerHolder);
      const p256Diploma = await receive(account, p256Holder);
      for (const [holderIdentity, credentialId] of [
        [ledgerHolder, ledgerDiploma],
        [p256Holder, p256Diploma],
      ] as const) {
        const request = verifier.createRequest({ dcqlQuery: diplomaQuery() });
        const response = await present(
          presentation(request.link, [{ credential_id: credentialId, query_id: "diploma" }], holderIdentity),
        );
        expect(response.statusCode, response.body).toBe(200);
        expect(verifier.submissions.find((s) => s.requestId === request.id)!.problems).toEqual([]);
      }
      const both = verifier.createRequest({
        dcqlQuery: {
          credentials: [
            { id: "diploma", format: "dc+sd-jwt", meta: { vct_values: [DIPLOMA_VCT] } },
            { id: "badge", format: "dc+sd-jwt", meta: { vct_values: [BADGE_VCT] } },
          ],
        },
      });
      const response = await present(
        presentation(both.link, [
          { credential_id: diplomaId, query_id: "diploma", disclosed_claims: ["family_name"] },
          { credential_id: badgeId, query_id: "badge", disclosed_claims: ["role"] },
        ]),
      );
      expect(response.statusCode).toBe(200);
      const submission = verifier.submissions.find((s) => s.requestId === both.id)!;
      expect(Object.keys(submission.presentations).sort()).toEqual(["badge", "diploma"]);
      expect(disclosed(submission.claims.diploma![0]!)).toEqual({ family_name: "Lovelace" });
      expect(disclosed(submission.claims.badge![0]!)).toEqual({ role: "engineer" });
    });

    it("400 no_matching_credentials: a credential that does not answer its query, an unknown query, another holder's credential, a claim it lacks, a required query unanswered, two for a single query", async () => {
      const other = await holder.account();
      const otherIdentity = ed25519DidKey();
      const foreign = await receive(other, otherIdentity);
      const unknown = randomUUID();
      const request = verifier.createRequest({ dcqlQuery: diplomaQuery() });
      const cases: Array<[unknown[], string]> = [
        [
          [{ credential_id: badgeId, query_id: "diploma" }],
          "selected_credentials[0]: the credential does not answer its credential query",
        ],
        [
          [{ credential_id: diplomaId, query_id: "pid" }],
          "selected_credentials[0]: its credential query is not in the request",
        ],
        [[{ credential_id: foreign, query_id: "diploma" }], "selected_credentials[0]: credential not found"],
        [[{ credential_id: unknown, query_id: "diploma" }], "selected_credentials[0]: credential not found"],
        [
          [{ credential_id: diplomaId, query_id: "diploma", disclosed_claims: ["nickname"] }],
          "selected_credentials[0]: a disclosed claim is not a claim of the credential",
        ],
        [
          [
            { credential_id: diplomaId, query_id: "diploma" },
            { credential_id: diplomaId, query_id: "diploma" },
          ],
          "selected_credentials[1]: the credential is selected twice",
        ],
      ];
      for (const [selected, message] of cases) {
        const response = await present(presentation(request.link, selected));
        expect(response.statusCode, message).toBe(400);
        expect(response.json()).toEqual({
          error: "no_matching_credentials",
          message,
        });
      }
      const twoQueries = verifier.createRequest({
        dcqlQuery: {
          credentials: [
            { id: "diploma", format: "dc+sd-jwt", meta: { vct_values: [DIPLOMA_VCT] } },
            { id: "badge", format: "dc+sd-jwt", meta: { vct_values: [BADGE_VCT] } },
          ],
        },
      });
      const partial = await present(presentation(twoQueries.link, [{ credential_id: diplomaId, query_id: "diploma" }]));
      expect(partial.statusCode).toBe(400);
      expect(partial.json().message).toBe("no credential is selected for credential query 'badge'");
      expect(verifier.submissions.some((s) => s.requestId === request.id || s.requestId === twoQueries.id)).toBe(false);
    });

    it("400 invalid_holder_key when private_key or holder_did is not the credential's holder", async () => {
      const request = verifier.createRequest({ dcqlQuery: diplomaQuery() });
      const wrongKey = await present({
        ...presentation(request.link, [{ credential_id: diplomaId, query_id: "diploma" }]),
        private_key: ed25519DidKey().privateKey,
      });
      expect(wrongKey.statusCode).toBe(400);
      expect(wrongKey.json()).toEqual({
        error: "invalid_holder_key",
        message: "private_key does not match holder_did",
      });
      const otherDid = await present(
        presentation(request.link, [{ credential_id: diplomaId, query_id: "diploma" }], ed25519DidKey()),
      );
      expect(otherDid.statusCode).toBe(400);
      expect(otherDid.json().message).toContain("is bound to another DID than holder_did");
    });

    it("400 when the session has expired: at the request URI, in the request object, or refused by the verifier", async () => {
      const selected = [{ credential_id: diplomaId, query_id: "diploma" }];
      const gone = await present(
        presentation(verifier.createRequest({ dcqlQuery: diplomaQuery(), requestStatus: 404 }).link, selected),
      );
      expect(gone.statusCode).toBe(400);
      expect(gone.json().error).toBe("invalid_authorization_request");
      const expired = await present(
        presentation(verifier.createRequest({ dcqlQuery: diplomaQuery(), tamper: "expired" }).link, selected),
      );
      expect(expired.statusCode).toBe(400);
      expect(expired.json().message).toBe("the authorization request has expired");
      const refused = await present(
        presentation(verifier.createRequest({ dcqlQuery: diplomaQuery(), refuseResponse: true }).link, selected),
      );
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({
        error: "presentation_failed",
        message: "the verifier refused the presentation (invalid_request: session expired)",
      });
    });

    it("400 for a body without the required fields", async () => {
      for (const [payload, message] of [
        [
          { selected_credentials: [], holder_did: "d", private_key: "k", authorization_request_uri: "x" },
          "selected_credentials must not be empty",
        ],
        [{ holder_did: "d", private_key: "k", authorization_request_uri: "x" }, "selected_credentials is required"],
        [
          { selected_credentials: [{ credential_id: diplomaId, query_id: "q" }], holder_did: "d", private_key: "k" },
          "authorization_request_uri is required",
        ],
        [
          {
            selected_credentials: [{ credential_id: "nope", query_id: "q" }],
            holder_did: "d",
            private_key: "k",
            authorization_request_uri: "x",
          },
          "selected_credentials.0.credential_id must be a UUID",
        ],
        [
          {
            selected_credentials: [{ credential_id: diplomaId, query_id: "q" }],
            private_key: "k",
            authorization_request_uri: "x",
          },
          "holder_did is required",
        ],
      ] as const) {
        const response = await present(payload as Record<string, unknown>);
        expect(response.statusCode, message).toBe(400);
        expect(response.json()).toEqual(invalidFieldsBody(message));
      }
    });
  });
});
