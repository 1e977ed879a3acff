import { createHash } from "node:crypto";
import { generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeCredential } from "./support/sd-jwt.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import {
  createOffer,
  didIssuer,
  didKeyOf,
  diplomaRequest,
  dpopProof,
  ed25519Key,
  fetchNonce,
  type HolderKey,
  keyProof,
  p256Key,
  postCredential,
  postCredentialWithDpop,
  redeemedOffer,
  thumbprintOf,
} from "./support/wallet.js";

const payloadOf = async (credential: string) =>
  (await decodeCredential(credential)).jwt.payload as Record<string, unknown>;

describe("POST /credential", () => {
  let issuer: TestIssuer;
  /** A redeemed DID-path offer (Bearer tokens allowed) and its issuer key. */
  let didOffer: { offerId: string };
  const holder = p256Key();
  const issuerKey = ed25519Key();
  /** Another redeemed DID-path offer: each access token may yield only batch_size credentials. */
  const freshDidOffer = () => redeemedOffer(issuer, didIssuer(issuerKey));

  beforeAll(async () => {
    issuer = await startTestIssuer();
    didOffer = await freshDidOffer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  const body = async (key: HolderKey = holder, extra: Record<string, unknown> = {}) => ({
    ...(await diplomaRequest(issuer, [key])),
    ...extra,
  });
  const bearerToken = async () => issuer.accessToken({ offerId: (await freshDidOffer()).offerId });
  /** A DPoP proof made on the issuer's clock. */
  const dpop = (input: Parameters<typeof dpopProof>[0]) => dpopProof({ now: issuer.clock.now, ...input });

  /** The OAuth error of a response, with the headers that matter. */
  const errorOf = (response: Awaited<ReturnType<typeof postCredential>>) => ({
    status: response.statusCode,
    body: response.json(),
    cacheControl: response.headers["cache-control"],
    wwwAuthenticate: response.headers["www-authenticate"],
  });

  describe("access token", () => {
    const invalidToken = (description: string, scheme = "Bearer") => ({
      status: 401,
      body: { error: "invalid_token", error_description: description },
      cacheControl: "no-store",
      wwwAuthenticate: `${scheme} error="invalid_token", error_description="${description.replace(/"/g, '\\"')}"${scheme === "DPoP" ? ', algs="ES256 EdDSA"' : ""}`,
    });

    it("is required in the Authorization header, never in the query string", async () => {
      const missing = "access token is required in the Authorization header (Bearer or DPoP scheme)";
      expect(errorOf(await postCredential(issuer, { body: await body() }))).toEqual(invalidToken(missing));
      const token = await bearerToken();
      const query = await issuer.app.inject({
        method: "POST",
        url: `/credential?access_token=${token}`,
        payload: await body(),
      });
      expect(errorOf(query)).toEqual(invalidToken(missing));
      expect(errorOf(await postCredential(issuer, { token, scheme: "Basic", body: await body() }))).toEqual(
        invalidToken("Authorization scheme must be Bearer or DPoP"),
      );
    });

    it("accepts the scheme in any case", async () => {
      for (const scheme of ["bearer", "BEARER", "Bearer"]) {
        const response = await postCredential(issuer, { token: await bearerToken(), scheme, body: await body() });
        expect(response.statusCode).toBe(200);
      }
    });

    it("refuses malformed, forged, expired and foreign tokens", async () => {
      const cases: Array<[Promise<string> | string, string]> = [
        ["not-a-jwt", "access token is not a compact JWT"],
        [
          issuer.accessToken({
            offerId: didOffer.offerId,
            claims: { exp: Math.floor(issuer.clock.now.getTime() / 1000) - 1 },
          }),
          "access token has expired",
        ],
        [
          issuer.accessToken({ offerId: didOffer.offerId, claims: { iss: "https://other-as.example" } }),
          "access token was issued by another authorization server",
        ],
        [
          issuer.accessToken({ offerId: didOffer.offerId, header: { typ: "JWT" } }),
          'access token typ must be "at+jwt"',
        ],
        [
          issuer.accessToken({ offerId: didOffer.offerId, claims: { aud: "https://issuer.example/other" } }),
          "access token is meant for another audience",
        ],
        [
          issuer.accessToken({
            offerId: didOffer.offerId,
            tenant: "verifier-co",
            claims: { aud: "https://issuer.example/acme" },
          }),
          "access token is meant for another audience",
        ],
        [
          issuer.accessToken({ offerId: didOffer.offerId, key: (await generateKeyPair("ES256")).privateKey }),
          "access token signature is invalid",
        ],
        [
          issuer.accessToken({ offerId: didOffer.offerId, claims: { offer_id: undefined } }),
          "access token claim offer_id is missing or invalid",
        ],
      ];
      for (const [token, description] of cases) {
        expect(errorOf(await postCredential(issuer, { token: await token, body: await body() }))).toEqual(
          invalidToken(description),
        );
      }
    });

    it("answers a deactivated issuer before judging the proofs (checked while its barrier is on its way)", async () => {
      const token = await bearerToken();
      const acme = issuer.doubles.trustRegistry.tenants.get("acme")!;
      issuer.doubles.trustRegistry.tenants.delete("acme");
      try {
        const response = await postCredential(issuer, {
          token,
          body: { credential_configuration_id: "university-diploma", proofs: { jwt: ["not.a.proof"] } },
        });
        expect([response.statusCode, response.json()]).toEqual([
          400,
          { error: "credential_request_denied", error_description: "the credential issuer is no longer active" },
        ]);
      } finally {
        issuer.doubles.trustRegistry.tenants.set("acme", acme);
      }
    });

    it("refuses a token whose offer was never redeemed", async () => {
      const created = (await createOffer(issuer)).json();
      const response = await postCredential(issuer, {
        token: await issuer.accessToken({ offerId: created.offer_id }),
        body: await body(),
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        error: "invalid_token",
        error_description: "access token refers to no redeemed offer",
      });
    });
  });

  describe("DPoP (X.509 path and DPoP-bound tokens)", () => {
    let x509Offer: { offerId: string };
    const dpopKey = p256Key();
    beforeAll(async () => {
      x509Offer = await redeemedOffer(issuer);
    });
    const boundToken = async (key = dpopKey) =>
      issuer.accessToken({ offerId: x509Offer.offerId, dpopRequired: true, jkt: await thumbprintOf(key) });
    const dpopNonce = async (token: string) => {
      const response = await postCredential(issuer, {
        token,
        scheme: "DPoP",
        dpop: await dpop({ key: dpopKey, accessToken: token }),
        body: await body(),
      });
      return response.headers["dpop-nonce"] as string;
    };
    // RFC 9449 §7.1: a resource server answers a bad proof with 401 and a DPoP challenge.
    const invalidDpopProof = (description: string) => ({
      status: 401,
      body: { error: "invalid_dpop_proof", error_description: description },
      cacheControl: "no-store",
      wwwAuthenticate: `DPoP error="invalid_dpop_proof", error_description="${description}", algs="ES256 EdDSA"`,
    });

    it("refuses a DPoP-bound token sent as Bearer", async () => {
      const description = "access token is DPoP-bound: send it with the DPoP scheme and a DPoP proof";
      expect(errorOf(await postCredential(issuer, { token: await boundToken(), body: await body() }))).toEqual({
        status: 401,
        body: { error: "invalid_token", error_description: description },
        cacheControl: "no-store",
        wwwAuthenticate: `DPoP error="invalid_token", error_description="${description}", algs="ES256 EdDSA"`,
      });
    });

    it("refuses a plain Bearer token where the credential requires DPoP (HAIP path)", async () => {
      const token = await issuer.accessToken({ offerId: x509Offer.offerId, dpopRequired: true });
      const response = await postCredential(issuer, { token, body: await body() });
      expect(errorOf(response)).toMatchObject({
        status: 401,
        body: { error: "invalid_token", error_description: "this credential requires a DPoP-bound access token" },
      });
      expect(response.headers["www-authenticate"]).toMatch(/^DPoP error="invalid_token"/);
    });

    it("refuses the DPoP scheme for a token that is not DPoP-bound", async () => {
      const response = await postCredential(issuer, {
        token: await bearerToken(),
        scheme: "DPoP",
        dpop: await dpop({ key: dpopKey }),
        body: await body(),
      });
      expect(errorOf(response).body).toEqual({
        error: "invalid_token",
        error_description: "access token is not DPoP-bound: send it with the Bearer scheme",
      });
    });

    it("asks for a server nonce as RFC 9449 §9 has a resource server do: 401, WWW-Authenticate and DPoP-Nonce", async () => {
      const token = await boundToken();
      for (const nonce of [undefined, "made-up-nonce"]) {
        const response = await postCredential(issuer, {
          token,
          scheme: "DPoP",
          dpop: await dpop({ key: dpopKey, accessToken: token, nonce }),
          body: await body(),
        });
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({ error: "use_dpop_nonce", error_description: expect.any(String) });
        expect(response.headers["www-authenticate"]).toMatch(
          /^DPoP error="use_dpop_nonce", error_description="[^"]+", algs="ES256 EdDSA"$/,
        );
        expect(response.headers["dpop-nonce"]).toMatch(/^[A-Za-z0-9._-]+$/);
        expect(response.headers["cache-control"]).toBe("no-store");
      }
    });

    it("issues after the nonce dance and hands out the next nonce", async () => {
      const token = await boundToken();
      const response = await postCredentialWithDpop(issuer, { token, key: dpopKey, body: await body() });
      expect(response.statusCode).toBe(200);
      expect(response.headers["dpop-nonce"]).toMatch(/^[A-Za-z0-9._-]+$/);
    });

    it("refuses proofs that are missing, doubled or bound to another request, token or key", async () => {
      const token = await boundToken();
      const nonce = await dpopNonce(token);
      const send = async (dpop: string | string[] | undefined, requestToken = token) =>
        errorOf(await postCredential(issuer, { token: requestToken, scheme: "DPoP", dpop, body: await body() }));
      expect(await send(undefined)).toEqual(invalidDpopProof("DPoP proof is missing"));
      const proof = await dpop({ key: dpopKey, accessToken: token, nonce });
      expect(await send([proof, proof])).toEqual(invalidDpopProof("Exactly one DPoP header is allowed"));
      expect(
        await send(await dpop({ key: dpopKey, accessToken: token, nonce, htu: "https://issuer.example/other" })),
      ).toEqual(invalidDpopProof("DPoP proof htu does not match the request URL"));
      expect(await send(await dpop({ key: dpopKey, accessToken: token, nonce, htm: "GET" }))).toEqual(
        invalidDpopProof("DPoP proof htm does not match the request method POST"),
      );
      expect(await send(await dpop({ key: dpopKey, accessToken: "another-token", nonce }))).toEqual(
        invalidDpopProof("DPoP proof ath does not match the access token"),
      );
      expect(await send(await dpop({ key: dpopKey, nonce }))).toEqual(
        invalidDpopProof("DPoP proof ath is required with an access token"),
      );
      expect(await send(await dpop({ key: p256Key(), accessToken: token, nonce }))).toEqual(
        invalidDpopProof("DPoP proof key does not match the key the access token is bound to"),
      );
      const stale = Math.floor(issuer.clock.now.getTime() / 1000) - 301;
      expect(await send(await dpop({ key: dpopKey, accessToken: token, nonce, iat: stale }))).toEqual(
        invalidDpopProof("DPoP proof is too old (iat more than 300 s in the past)"),
      );
    });

    it("refuses a replayed DPoP proof (jti)", async () => {
      const token = await boundToken();
      const nonce = await dpopNonce(token);
      const proof = await dpop({ key: dpopKey, accessToken: token, nonce });
      const first = await postCredential(issuer, { token, scheme: "DPoP", dpop: proof, body: await body() });
      expect(first.statusCode).toBe(200);
      const replay = await postCredential(issuer, { token, scheme: "DPoP", dpop: proof, body: await body() });
      expect(errorOf(replay)).toEqual(invalidDpopProof("DPoP proof jti has already been used"));
    });

    it("accepts an optional DPoP binding on the DID path", async () => {
      const key = ed25519Key();
      const token = await issuer.accessToken({
        offerId: (await freshDidOffer()).offerId,
        jkt: await thumbprintOf(key),
      });
      const response = await postCredentialWithDpop(issuer, { token, key, body: await body() });
      expect(response.statusCode).toBe(200);
    });
  });

  describe("credential request", () => {
    const send = async (requestBody: unknown) =>
      errorOf(await postCredential(issuer, { token: await bearerToken(), body: requestBody }));
    const oauthError = (status: number, error: string, description: string) => ({
      status,
      body: { error, error_description: description },
      cacheControl: "no-store",
      wwwAuthenticate: undefined,
    });
    /** A refused request field: the description and `errors` name it (`<field> <message>`). */
    const fieldError = (error: string, description: string) => {
      const space = description.indexOf(" ");
      const errors = [{ field: description.slice(0, space), message: description.slice(space + 1) }];
      return { ...oauthError(400, error, description), body: { error, error_description: description, errors } };
    };

    it("requires exactly credential_configuration_id", async () => {
      const { proofs } = await body();
      expect(await send({ proofs })).toEqual(
        fieldError("invalid_credential_request", "credential_configuration_id is required"),
      );
      expect(
        await send({ credential_configuration_id: "university-diploma", credential_identifier: "x", proofs }),
      ).toEqual(
        fieldError(
          "invalid_credential_request",
          "credential_identifier must not be given with credential_configuration_id",
        ),
      );
      expect(await send({ credential_identifier: "x", proofs })).toEqual(
        fieldError(
          "invalid_credential_request",
          "credential_identifier is not yet supported; use credential_configuration_id",
        ),
      );
      expect(await send({ credential_configuration_id: 7, proofs })).toEqual(
        fieldError("invalid_credential_request", "credential_configuration_id must be a string"),
      );
      expect(await send([])).toEqual(fieldError("invalid_credential_request", "body must be a JSON object"));
      const empty = await postCredential(issuer, {
        token: await bearerToken(),
        headers: { "content-type": "application/json" },
        body: "",
      });
      expect(empty.json()).toEqual({
        error: "invalid_credential_request",
        error_description:
          "credential_configuration_id is required; proofs is required: credentials are bound to the holder's key",
        errors: [
          { field: "credential_configuration_id", message: "is required" },
          { field: "proofs", message: "is required: credentials are bound to the holder's key" },
        ],
      });
    });

    it("refuses a configuration the token does not cover", async () => {
      expect(await send(await body(holder, { credential_configuration_id: "employee-badge" }))).toEqual(
        oauthError(
          400,
          "unknown_credential_configuration",
          "the credential configuration is not covered by the access token",
        ),
      );
    });

    it("requires jwt proofs", async () => {
      expect(await send({ credential_configuration_id: "university-diploma" })).toEqual(
        fieldError("invalid_proof", "proofs is required: credentials are bound to the holder's key"),
      );
      expect(await send({ credential_configuration_id: "university-diploma", proofs: { di_vp: ["x"] } })).toEqual(
        fieldError("invalid_proof", "proofs names a proof type that is not supported; use jwt"),
      );
      expect(await send({ credential_configuration_id: "university-diploma", proofs: { jwt: [] } })).toEqual(
        fieldError("invalid_proof", "proofs.jwt must be a non-empty array of JWT strings"),
      );
      expect(
        await send({ credential_configuration_id: "university-diploma", proof: { proof_type: "cwt", cwt: "x" } }),
      ).toEqual(fieldError("invalid_proof", "proof.proof_type must be jwt (the only proof type supported)"));
      expect(
        await send({
          credential_configuration_id: "university-diploma",
          proofs: { jwt: ["a"] },
          proof: { proof_type: "jwt", jwt: "a" },
        }),
      ).toEqual(fieldError("invalid_credential_request", "proof must not be given with proofs"));
      expect(await send(await body(holder, { is_on_chain: "yes" }))).toEqual(
        fieldError("invalid_credential_request", "is_on_chain must be a boolean"),
      );
    });

    it("names every failing member in one answer, with the code of the first", async () => {
      const errors = [
        { field: "credential_configuration_id", message: "must be a string" },
        { field: "is_on_chain", message: "must be a boolean" },
        { field: "proofs.jwt.0", message: "must be a non-empty array of JWT strings" },
      ];
      const description = errors.map(({ field, message }) => `${field} ${message}`).join("; ");
      expect(await send({ credential_configuration_id: 7, is_on_chain: "yes", proofs: { jwt: [""] } })).toEqual({
        ...oauthError(400, "invalid_credential_request", description),
        body: { error: "invalid_credential_request", error_description: description, errors },
      });
      expect((await send({ credential_configuration_id: "university-diploma", proof: "x" })).body).toMatchObject({
        error: "invalid_proof",
        errors: [{ field: "proof", message: "must be a JSON object" }],
      });
    });

    it("refuses invalid proofs precisely", async () => {
      const nonce = async () => fetchNonce(issuer);
      const proofBody = (jwt: string) => ({
        credential_configuration_id: "university-diploma",
        proofs: { jwt: [jwt] },
      });
      const now = Math.floor(issuer.clock.now.getTime() / 1000);
      const cases: Array<[string, string]> = [
        ["not.a.jwt.at.all", "proof is not a compact JWT"],
        [
          await keyProof({ key: holder, nonce: await nonce(), header: { typ: "JWT" } }),
          'proof typ must be "openid4vci-proof+jwt"',
        ],
        [
          await keyProof({ key: holder, nonce: await nonce(), payload: { aud: "https://issuer.example/other" } }),
          "proof aud must be the credential issuer identifier",
        ],
        [await keyProof({ key: holder, nonce: await nonce(), payload: { iat: now - 301 } }), "proof is too old (iat)"],
        [
          await keyProof({ key: holder, nonce: await nonce(), payload: { iat: now + 61 } }),
          "proof iat is in the future",
        ],
        [await keyProof({ key: holder, nonce: "made-up" }), "proof nonce is not a c_nonce of this issuer"],
        [
          await keyProof({ key: holder, nonce: await nonce(), payload: { nonce: undefined } }),
          "proof has no nonce (get one from the nonce endpoint)",
        ],
        [
          await keyProof({ key: p256Key(), nonce: await nonce(), header: { jwk: holder.publicJwk } }),
          "proof signature is invalid",
        ],
        [
          await keyProof({ key: holder, nonce: await nonce(), header: { jwk: holder.privateJwk } }),
          "proof jwk must not contain private key material",
        ],
        [
          await keyProof({ key: holder, nonce: await nonce(), kid: "did:ledger:unknown#key-1" }),
          "proof kid DID cannot be resolved",
        ],
      ];
      for (const [jwt, description] of cases) {
        expect(await send(proofBody(jwt))).toEqual(oauthError(400, "invalid_proof", description));
      }
    });

    it("refuses a replayed c_nonce, and an expired one", async () => {
      const nonce = await fetchNonce(issuer);
      const requestBody = {
        credential_configuration_id: "university-diploma",
        proofs: { jwt: [await keyProof({ key: holder, nonce, now: issuer.clock.now })] },
      };
      expect((await postCredential(issuer, { token: await bearerToken(), body: requestBody })).statusCode).toBe(200);
      const again = {
        ...requestBody,
        proofs: { jwt: [await keyProof({ key: holder, nonce, now: issuer.clock.now })] },
      };
      expect(await send(again)).toEqual(
        oauthError(400, "invalid_proof", "proof nonce already used; get a fresh c_nonce from the nonce endpoint"),
      );
      const old = await fetchNonce(issuer);
      issuer.clock.advance(301);
      try {
        const expired = {
          credential_configuration_id: "university-diploma",
          proofs: { jwt: [await keyProof({ key: holder, nonce: old, now: issuer.clock.now })] },
        };
        expect(await send(expired)).toEqual(oauthError(400, "invalid_proof", "proof nonce has expired"));
      } finally {
        issuer.clock.advance(-301);
      }
    });

    it("does not spend the nonce of a refused request", async () => {
      const nonce = await fetchNonce(issuer);
      const bad = await keyProof({ key: holder, nonce, payload: { aud: "https://elsewhere.example" } });
      expect((await send({ credential_configuration_id: "university-diploma", proofs: { jwt: [bad] } })).status).toBe(
        400,
      );
      const good = await keyProof({ key: holder, nonce, now: issuer.clock.now });
      const response = await postCredential(issuer, {
        token: await bearerToken(),
        body: { credential_configuration_id: "university-diploma", proofs: { jwt: [good] } },
      });
      expect(response.statusCode).toBe(200);
    });

    it("accepts the draft singular proof, a did:key kid and ignores unknown parameters", async () => {
      const key = ed25519Key();
      const jwt = await keyProof({
        key,
        nonce: await fetchNonce(issuer),
        kid: `${didKeyOf(key)}#${didKeyOf(key).slice(8)}`,
        now: issuer.clock.now,
      });
      const response = await postCredential(issuer, {
        token: await bearerToken(),
        body: {
          credential_configuration_id: "university-diploma",
          proof: { proof_type: "jwt", jwt },
          format: "dc+sd-jwt",
          resource: "x",
        },
      });
      expect(response.statusCode).toBe(200);
      expect((await payloadOf(response.json().credentials[0].credential)).cnf).toEqual({ jwk: key.publicJwk });
    });

    it("answers 200 with credentials, Cache-Control: no-store and Date", async () => {
      const response = await postCredential(issuer, { token: await bearerToken(), body: await body() });
      expect(response.statusCode).toBe(200);
      expect(response.headers["cache-control"]).toBe("no-store");
      expect(new Date(response.headers.date as string).toUTCString()).toBe(response.headers.date);
      const json = response.json();
      expect(Object.keys(json)).toEqual(["credentials", "notification_id"]);
      expect(json.credentials).toHaveLength(1);
      expect(Object.keys(json.credentials[0])).toEqual(["credential", "credential_id", "offer_id"]);
      expect(json.credentials[0].credential).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+~([\w-]+~)+$/);
    });
  });

  describe("batch issuance", () => {
    it("issues one credential per proof, each bound to its proof's key", async () => {
      const nonce = await fetchNonce(issuer);
      const keys = [p256Key(), ed25519Key(), p256Key()];
      const jwts = await Promise.all(keys.map((key) => keyProof({ key, nonce, now: issuer.clock.now })));
      const response = await postCredential(issuer, {
        token: await bearerToken(),
        body: { credential_configuration_id: "university-diploma", proofs: { jwt: jwts } },
      });
      expect(response.statusCode).toBe(200);
      const { credentials } = response.json();
      expect(credentials).toHaveLength(3);
      for (const [index, key] of keys.entries()) {
        expect((await payloadOf(credentials[index].credential)).cnf).toEqual({ jwk: key.publicJwk });
      }
    });

    it("names the failing proof of a batch and issues nothing", async () => {
      const nonce = await fetchNonce(issuer);
      const good = await keyProof({ key: holder, nonce, now: issuer.clock.now });
      const bad = await keyProof({ key: holder, nonce, header: { typ: "jwt" } });
      const response = await postCredential(issuer, {
        token: await bearerToken(),
        body: { credential_configuration_id: "university-diploma", proofs: { jwt: [good, bad] } },
      });
      expect(response.json()).toEqual({
        error: "invalid_proof",
        error_description: 'proofs.jwt[1]: proof typ must be "openid4vci-proof+jwt"',
      });
      // The nonce was not spent.
      const retry = await postCredential(issuer, {
        token: await bearerToken(),
        body: { credential_configuration_id: "university-diploma", proofs: { jwt: [good] } },
      });
      expect(retry.statusCode).toBe(200);
    });

    it("refuses more proofs than batch_size", async () => {
      const nonce = await fetchNonce(issuer);
      const jwt = await keyProof({ key: holder, nonce, now: issuer.clock.now });
      const response = await postCredential(issuer, {
        token: await bearerToken(),
        body: { credential_configuration_id: "university-diploma", proofs: { jwt: Array(11).fill(jwt) } },
      });
      expect(response.json()).toEqual({
        error: "invalid_credential_request",
        error_description: "proofs.jwt must have at most 10 proofs in one request (batch_size)",
        errors: [{ field: "proofs.jwt", message: "must have at most 10 proofs in one request (batch_size)" }],
      });
    });
  });

  describe("issuance bound: at most batch_size credentials per access token and configuration", () => {
    const denied = {
      error: "credential_request_denied",
      error_description:
        "this access token may yield at most 10 credentials of configuration 'university-diploma' (batch_size)",
    };
    /** One request with `count` proofs under one fresh c_nonce, each proof by a new key. */
    const request = async (token: string, count = 1) => {
      const nonce = await fetchNonce(issuer);
      const jwts = await Promise.all(
        Array.from({ length: count }, () => keyProof({ key: p256Key(), nonce, now: issuer.clock.now })),
      );
      return postCredential(issuer, {
        token,
        body: { credential_configuration_id: "university-diploma", proofs: { jwt: jwts } },
      });
    };

    it("stops the same token, with a fresh c_nonce and a new key each time, after batch_size credentials", async () => {
      const token = await bearerToken();
      for (let i = 0; i < 10; i++) expect((await request(token)).statusCode).toBe(200);
      const refused = await request(token);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual(denied);
      expect(refused.headers["cache-control"]).toBe("no-store");
      // A fresh token minted for the same offer does not reopen it.
      const again = await issuer.accessToken({ offerId: JSON.parse(atob(token.split(".")[1]!)).offer_id });
      expect((await request(again)).json()).toEqual(denied);
      // Another offer's token is unaffected.
      expect((await request(await bearerToken())).statusCode).toBe(200);
    });

    it("counts every credential of a batch, and refuses a batch that would overrun the bound as a whole", async () => {
      const token = await bearerToken();
      for (const count of [4, 4]) expect((await request(token, count)).json().credentials).toHaveLength(count);
      expect((await request(token, 3)).json()).toEqual(denied);
      expect((await request(token, 2)).json().credentials).toHaveLength(2);
      expect((await request(token, 1)).json()).toEqual(denied);
    });

    it("holds under concurrent requests (counted atomically in the database)", async () => {
      const token = await bearerToken();
      const responses = await Promise.all(Array.from({ length: 16 }, () => request(token)));
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses.filter((status) => status === 200)).toHaveLength(10);
      expect(statuses.filter((status) => status === 400)).toHaveLength(6);
    });

    it("does not spend the allowance when nothing was issued (ledger unreachable)", async () => {
      const token = await bearerToken();
      for (let i = 0; i < 9; i++) expect((await request(token)).statusCode).toBe(200);
      issuer.doubles.ledger.available = false;
      try {
        for (let i = 0; i < 3; i++) {
          const response = await postCredential(issuer, { token, body: await body(holder, { is_on_chain: true }) });
          expect(response.statusCode).toBe(503);
        }
      } finally {
        issuer.doubles.ledger.available = true;
      }
      expect((await request(token)).statusCode).toBe(200);
      expect((await request(token)).json()).toEqual(denied);
    });
  });

  describe("holder_did binding", () => {
    it("issues only to proofs made with the key of the offer's holder_did", async () => {
      const bound = ed25519Key();
      const did = didKeyOf(bound);
      const issuerKey = ed25519Key();
      const { offerId } = await redeemedOffer(issuer, { ...didIssuer(issuerKey), holder_did: did });
      const token = await issuer.accessToken({ offerId });
      const request = async (jwt: string) =>
        postCredential(issuer, {
          token,
          body: { credential_configuration_id: "university-diploma", proofs: { jwt: [jwt] } },
        });
      const other = await request(
        await keyProof({ key: p256Key(), nonce: await fetchNonce(issuer), now: issuer.clock.now }),
      );
      expect(other.json()).toEqual({
        error: "invalid_proof",
        error_description: "proof key does not belong to the holder_did the offer is bound to",
      });
      const byKid = await request(
        await keyProof({ key: bound, nonce: await fetchNonce(issuer), kid: did, now: issuer.clock.now }),
      );
      expect(byKid.statusCode).toBe(200);
      const byJwk = await request(
        await keyProof({ key: bound, nonce: await fetchNonce(issuer), now: issuer.clock.now }),
      );
      expect(byJwk.statusCode).toBe(200);
    });

    it("resolves a did:ledger holder_did and accepts its DID URL as kid", async () => {
      const bound = ed25519Key();
      const did = "did:ledger:HolderDid1";
      issuer.doubles.ledger.addDid(did, bound.publicJwk);
      const issuerKey = ed25519Key();
      const { offerId } = await redeemedOffer(issuer, { ...didIssuer(issuerKey), holder_did: did });
      const token = await issuer.accessToken({ offerId });
      const jwt = await keyProof({
        key: bound,
        nonce: await fetchNonce(issuer),
        kid: `${did}#key-1`,
        now: issuer.clock.now,
      });
      const response = await postCredential(issuer, {
        token,
        body: { credential_configuration_id: "university-diploma", proofs: { jwt: [jwt] } },
      });
      expect(response.statusCode).toBe(200);
    });
  });

  describe("is_on_chain", () => {
    it("enqueues a salted digest for notarization and returns its reference", async () => {
      const before = issuer.doubles.notary.enqueued.length;
      const response = await postCredential(issuer, {
        token: await bearerToken(),
        body: await body(holder, { is_on_chain: true }),
      });
      expect(response.statusCode).toBe(200);
      const [item] = response.json().credentials;
      expect(Object.keys(item)).toEqual(["credential", "reference", "credential_id", "offer_id"]);
      const record = issuer.doubles.notary.enqueued[before]!;
      // Pending at issuance, with the issuer's salt: digest = SHA-256(issuer salt || SHA-256(issuer JWT)).
      expect(item.reference).toEqual({
        chain: "ledger",
        object_id: record.objectId,
        state: "pending",
        issuer_salt: expect.stringMatching(/^[0-9a-f]{64}$/),
        digest: record.digest,
      });
      const issuerJwt = item.credential.split("~")[0];
      const jwtDigest = createHash("sha256").update(issuerJwt).digest();
      expect(
        createHash("sha256").update(Buffer.from(item.reference.issuer_salt, "hex")).update(jwtDigest).digest("hex"),
      ).toBe(record.digest);
      expect(record.digest).not.toBe(createHash("sha256").update(issuerJwt).digest("hex"));
      expect(record.credentialId).toMatch(/^[0-9a-f-]{36}$/);
      expect(record.tenant).toBe("acme");
      // The offer goes along, for the offer_id of the credential's webhook events.
      expect(record.offerId).toMatch(/^[0-9a-f-]{36}$/);
    });

    it("answers 503 when the ledger is unreachable, and still issues without notarization", async () => {
      issuer.doubles.ledger.available = false;
      try {
        const response = await postCredential(issuer, {
          token: await bearerToken(),
          body: await body(holder, { is_on_chain: true }),
        });
        expect(response.statusCode).toBe(503);
        expect(response.json()).toEqual({ error: "unavailable", error_description: "Ledger is unavailable" });
        const plain = await postCredential(issuer, {
          token: await bearerToken(),
          body: await body(holder, { is_on_chain: false }),
        });
        expect(plain.statusCode).toBe(200);
        expect(plain.json().credentials[0].reference).toBeUndefined();
      } finally {
        issuer.doubles.ledger.available = true;
      }
    });
  });

  describe("credential records (revocation state, this service's README)", () => {
    it("records every issued credential as active, found by the SHA-256 of its issuer JWT", async () => {
      const offer = await freshDidOffer();
      const token = await issuer.accessToken({ offerId: offer.offerId });
      const response = await postCredential(issuer, { token, body: await body() });
      const issuerJwt = response.json().credentials[0].credential.split("~")[0];
      const digest = createHash("sha256").update(issuerJwt).digest("hex");
      const record = await issuer.deps.credentials.findByIssuerJwtSha256(digest);
      expect(record).toMatchObject({
        tenant: "acme",
        offerId: offer.offerId,
        credentialConfigurationId: "university-diploma",
        holderKeyThumbprint: await thumbprintOf(holder),
        status: "active",
      });
      expect(record?.revokedAt).toBeUndefined();
      expect(await issuer.deps.credentials.revoke(record!.id, issuer.clock.now)).toBe(true);
      expect((await issuer.deps.credentials.findByIssuerJwtSha256(digest))?.status).toBe("revoked");
    });
  });

  it("refuses a token signed by a key the AS does not publish (unknown kid)", async () => {
    const other = await generateKeyPair("ES256");
    const token = await issuer.accessToken({
      offerId: didOffer.offerId,
      key: other.privateKey,
      header: { kid: "rotated" },
    });
    const response = await postCredential(issuer, { token, body: await body() });
    expect(response.json()).toEqual({
      error: "invalid_token",
      error_description: "access token is signed with an unknown key",
    });
    expect(response.statusCode).toBe(401);
  });
  it("counts issued credentials by signing path and refusals by error code", async () => {
    const registry = issuer.context.metrics.registry;
    const counterValue = async (name: string, labels: Record<string, string>) => {
      const metric = (await registry.getSingleMetric(name)?.get())?.values.find((v) =>
        Object.entries(labels).every(([key, value]) => v.labels[key] === value),
      );
      return metric?.value ?? 0;
    };
    const issued = await counterValue("attesto_credentials_issued_total", { signing: "did" });
    const refused = await counterValue("attesto_credential_requests_refused_total", { error: "invalid_token" });
    expect((await postCredential(issuer, { token: await bearerToken(), body: await body() })).statusCode).toBe(200);
    expect((await postCredential(issuer, { body: await body() })).statusCode).toBe(401);
    expect(await counterValue("attesto_credentials_issued_total", { signing: "did" })).toBe(issued + 1);
    expect(await counterValue("attesto_credential_requests_refused_total", { error: "invalid_token" })).toBe(
      refused + 1,
    );
  });
});
