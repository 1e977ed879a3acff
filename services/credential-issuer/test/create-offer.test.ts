import { createHash, generateKeyPairSync } from "node:crypto";
import { invalidFieldsBody } from "@attesto/runtime/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diplomaClaims } from "./support/credential-type.fixture.js";
import { API_KEYS } from "./support/doubles.js";
import { ISSUER_URL, startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import { createOffer, didKeyOf, ed25519Key, p256Key, thumbprintOf } from "./support/wallet.js";

const LEDGER_DID = "did:ledger:3mJr7AoUXx2Wqd8ZbXhpNz";
const issuerKey = ed25519Key();
const seedOf = (key: ReturnType<typeof ed25519Key>) => key.privateJwk.d as string;

describe("POST /v1/offers", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
    issuer.doubles.ledger.addDid(LEDGER_DID, issuerKey.publicJwk);
  });
  afterAll(async () => {
    await issuer.close();
  });

  const expectError = async (response: Awaited<ReturnType<typeof createOffer>>, status: number, message: string) => {
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status,
      body: {
        error:
          status === 400
            ? "invalid_request"
            : status === 401
              ? "unauthorized"
              : status === 403
                ? "forbidden"
                : "unavailable",
        message,
      },
    });
  };

  /** A 400 naming failing fields: `errors` lists each, the message joins them (root README, "Error answers"). */
  const expectFields = async (response: Awaited<ReturnType<typeof createOffer>>, message: string) => {
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: invalidFieldsBody(message),
    });
  };

  describe("authentication (the trust-registry README)", () => {
    it("requires an API key", async () => {
      const response = await issuer.app.inject({ method: "POST", url: "/v1/offers", payload: {} });
      await expectError(response, 401, "API Key is required");
    });
    it("rejects unknown keys and keys of accounts not approved", async () => {
      await expectError(await createOffer(issuer, {}, "attesto_production_unknown"), 401, "Invalid API Key");
      await expectError(await createOffer(issuer, {}, API_KEYS.pending), 401, "Account is not approved");
    });
    it("forbids tenants that are not issuers", async () => {
      await expectError(await createOffer(issuer, {}, API_KEYS.verifierOnly), 403, "Forbidden");
    });
  });

  describe("X.509 path (no DID fields)", () => {
    it("creates a pre-authorized offer: 201 with exactly the creation result", async () => {
      const before = issuer.clock.now.getTime();
      const response = await createOffer(issuer);
      expect(response.statusCode).toBe(201);
      expect(response.headers["cache-control"]).toBe("no-store");
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual([
        "credential_offer_uri",
        "deep_link",
        "expires_at",
        "offer_id",
        "page_url",
        "qr_code_url",
      ]);
      expect(body.offer_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(body.credential_offer_uri).toBe(`${ISSUER_URL}/v1/offers/${body.offer_id}`);
      expect(body.deep_link).toBe(
        `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(body.credential_offer_uri)}`,
      );
      expect(body.deep_link).toBe(
        `openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fissuer.example%2Fv1%2Foffers%2F${body.offer_id}`,
      );
      expect(body.qr_code_url).toBe(`${ISSUER_URL}/v1/offers/${body.offer_id}/qr.svg`);
      expect(body.page_url).toBe(`${ISSUER_URL}/v1/offers/${body.offer_id}/page`);
      expect(Date.parse(body.expires_at)).toBe(before + 3600_000);
      expect(body.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it("honours expires_in within 60–86400 seconds", async () => {
      for (const seconds of [60, 86_400]) {
        const response = await createOffer(issuer, { expires_in: seconds });
        expect(response.statusCode).toBe(201);
        expect(Date.parse(response.json().expires_at)).toBe(issuer.clock.now.getTime() + seconds * 1000);
      }
      for (const expires_in of [59, 86_401, 90.5, "600"]) {
        const response = await createOffer(issuer, { expires_in });
        expect(response.statusCode).toBe(400);
        expect(response.json().message).toMatch(/^expires_in must be/);
      }
    });

    it("stores the pre-authorized code as SHA-256 and sealed, never in plaintext", async () => {
      const response = await createOffer(issuer);
      const offerId = response.json().offer_id;
      const document = (await issuer.app.inject({ method: "GET", url: `/v1/offers/${offerId}` })).json();
      const code = document.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"];
      expect(Buffer.from(code, "base64url")).toHaveLength(32);
      const { rows } = await sql<
        Record<string, unknown>
      >`SELECT * FROM ${sql.table(`${issuer.database.schema}.offers`)} WHERE id = ${offerId}`.execute(
        issuer.database.db,
      );
      const row = rows[0]!;
      expect(row.pre_authorized_code_hash).toBe(createHash("sha256").update(code).digest("hex"));
      expect(JSON.stringify(row)).not.toContain(code);
      expect(row.pre_authorized_code_sealed).toMatch(/^v1\.test1\./);
      expect(row.signing_mode).toBe("x509");
      expect(row.issuer_key_sealed).toBeNull();
      // Each offer its own code (cut from the CSPRNG pool, never handed out twice).
      const codes = new Set([code]);
      for (let i = 0; i < 5; i++) {
        const other = (await createOffer(issuer)).json().offer_id;
        const otherDocument = (await issuer.app.inject({ method: "GET", url: `/v1/offers/${other}` })).json();
        codes.add(otherDocument.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"]);
      }
      expect(codes.size).toBe(6);
    });

    it("creates an authorization-code offer", async () => {
      const response = await createOffer(issuer, { flow: "authorization-code" });
      expect(response.statusCode).toBe(201);
    });

    it("accepts require_transaction_code: false and rejects true (this service's README)", async () => {
      expect((await createOffer(issuer, { require_transaction_code: false })).statusCode).toBe(201);
      await expectFields(
        await createOffer(issuer, { require_transaction_code: true }),
        "require_transaction_code must be false: transaction codes are not supported yet",
      );
    });

    it("accepts null for optional fields and ignores unknown fields", async () => {
      const response = await createOffer(issuer, {
        issuer_did: null,
        issuer_private_key: null,
        holder_did: null,
        extra: 1,
      });
      expect(response.statusCode).toBe(201);
    });
  });

  describe("request fields", () => {
    const post = (payload: unknown) =>
      issuer.app.inject({
        method: "POST",
        url: "/v1/offers",
        headers: { "x-api-key": API_KEYS.acme },
        payload: payload as never,
      });

    const expectInvalidFields = async (response: Awaited<ReturnType<typeof post>>, message: string) => {
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 400,
        body: invalidFieldsBody(message),
      });
    };

    it("names the missing or malformed field", async () => {
      await expectInvalidFields(await post({ flow: "pre-authorized" }), "credential is required");
      await expectInvalidFields(
        await post({ credential: { claims: diplomaClaims }, flow: "pre-authorized" }),
        "credential.config_id is required",
      );
      await expectInvalidFields(
        await post({ credential: { config_id: "university-diploma" }, flow: "pre-authorized" }),
        "credential.claims is required",
      );
      await expectInvalidFields(
        await post({ credential: { config_id: "university-diploma", claims: diplomaClaims } }),
        "flow is required",
      );
      await expectInvalidFields(
        await post({ credential: { config_id: "university-diploma", claims: diplomaClaims }, flow: "implicit" }),
        "flow must be one of pre-authorized, authorization-code",
      );
      await expectInvalidFields(await post([1]), "body must be a JSON object");
    });

    it("names every bad field in one answer", async () => {
      await expectInvalidFields(
        await post({ credential: { config_id: "" }, flow: "sideways", expires_in: 5 }),
        "credential.config_id must not be empty; credential.claims is required; flow must be one of pre-authorized, authorization-code; expires_in must be from 60 to 86400 seconds",
      );
    });

    it("requires a credential configuration of this tenant", async () => {
      await expectFields(
        await createOffer(issuer, { credential: { config_id: "driving-licence", claims: {} } }),
        "credential.config_id is not a credential configuration of this tenant",
      );
    });

    it("validates claims against the type's JSON Schema, naming the failing claim", async () => {
      const withClaims = (claims: Record<string, unknown>) =>
        createOffer(issuer, { credential: { config_id: "university-diploma", claims } });
      await expectFields(
        await withClaims({ ...diplomaClaims, birth_date: "01.04.1990" }),
        "credential.claims.birth_date must be an ISO 8601 date (YYYY-MM-DD)",
      );
      const { given_name: _, ...withoutGivenName } = diplomaClaims;
      await expectFields(await withClaims(withoutGivenName), "credential.claims.given_name is required");
      await expectFields(
        await withClaims({ ...diplomaClaims, degree: { type: "master" } }),
        "credential.claims.degree.name is required",
      );
      await expectFields(
        await withClaims({ ...diplomaClaims, degree: { type: "apprentice", name: "x" } }),
        "credential.claims.degree.type must be one of bachelor, master, doctorate",
      );
      await expectFields(
        await withClaims({ ...diplomaClaims, courses: [{ title: "" }] }),
        "credential.claims.courses.0.title must not be empty",
      );
      await expectFields(
        await withClaims({ ...diplomaClaims, nickname: "Eri" }),
        "credential.claims has a claim that is not a claim of this credential type",
      );
      await expectFields(
        await withClaims({ ...diplomaClaims, vct: "x" }),
        "credential.claims.vct is reserved by SD-JWT VC and cannot be a claim; credential.claims has a claim that is not a claim of this credential type",
      );
    });

    it("names every failing claim at once, in plain words", async () => {
      // Four wrong claims: one missing, one of the wrong type, one out of its enumeration, one not a date.
      const { family_name: _f, ...withoutFamilyName } = diplomaClaims;
      await expectFields(
        await createOffer(issuer, {
          credential: {
            config_id: "university-diploma",
            claims: {
              ...withoutFamilyName,
              given_name: 7,
              degree: { type: "apprentice", name: "x" },
              awarded_on: "soon",
            },
          },
        }),
        [
          "credential.claims.family_name is required",
          "credential.claims.given_name must be a string",
          "credential.claims.degree.type must be one of bachelor, master, doctorate",
          "credential.claims.awarded_on must be an ISO 8601 date (YYYY-MM-DD)",
        ].join("; "),
      );
      // Claims that are not an object: no validator type name ("must be record").
      await expectFields(
        await createOffer(issuer, { credential: { config_id: "university-diploma", claims: [] } }),
        "credential.claims must be a JSON object",
      );
      // The claims with the other fields of the request in the same answer.
      await expectFields(
        await createOffer(issuer, {
          credential: { config_id: "university-diploma", claims: withoutFamilyName },
          holder_did: "not-a-did",
          issuer_did: LEDGER_DID,
          require_transaction_code: true,
        }),
        [
          "credential.claims.family_name is required",
          "require_transaction_code must be false: transaction codes are not supported yet",
          "issuer_did requires issuer_private_key (give both for DID signing, or neither for X.509 signing)",
          "holder_did is not a valid DID",
        ].join("; "),
      );
    });

    it("checks holder_did", async () => {
      await expectFields(await createOffer(issuer, { holder_did: "not-a-did" }), "holder_did is not a valid DID");
      await expectFields(
        await createOffer(issuer, { holder_did: "did:web:example.com" }),
        "holder_did uses an unsupported DID method (did:ledger and did:key are supported)",
      );
      expect((await createOffer(issuer, { holder_did: didKeyOf(p256Key()) })).statusCode).toBe(201);
      expect((await createOffer(issuer, { holder_did: LEDGER_DID })).statusCode).toBe(201);
    });
  });

  describe("DID path (issuer_did + issuer_private_key)", () => {
    it("rejects one signing field without the other", async () => {
      await expectFields(
        await createOffer(issuer, { issuer_did: LEDGER_DID }),
        "issuer_did requires issuer_private_key (give both for DID signing, or neither for X.509 signing)",
      );
      await expectFields(
        await createOffer(issuer, { issuer_private_key: seedOf(issuerKey) }),
        "issuer_private_key requires issuer_did (give both for DID signing, or neither for X.509 signing)",
      );
    });

    it("accepts a did:ledger DID whose document holds the key, and keeps the key sealed", async () => {
      const response = await createOffer(issuer, { issuer_did: LEDGER_DID, issuer_private_key: seedOf(issuerKey) });
      expect(response.statusCode).toBe(201);
      const { rows } = await sql<
        Record<string, unknown>
      >`SELECT * FROM ${sql.table(`${issuer.database.schema}.offers`)} WHERE id = ${response.json().offer_id}`.execute(
        issuer.database.db,
      );
      expect(rows[0]).toMatchObject({
        signing_mode: "did",
        issuer_did: LEDGER_DID,
        issuer_kid: `${LEDGER_DID}#key-1`,
        issuer_key_alg: "EdDSA",
      });
      // The offer names the tenant's key by thumbprint; the key itself is sealed once (issuer-keys.test.ts).
      expect(rows[0]).toMatchObject({ issuer_key_sealed: null, issuer_key_thumbprint: await thumbprintOf(issuerKey) });
      const keys = await sql<{ sealed_private_key: string }>`SELECT sealed_private_key FROM ${sql.table(
        `${issuer.database.schema}.issuer_private_keys`,
      )} WHERE id = ${`acme:${await thumbprintOf(issuerKey)}`}`.execute(issuer.database.db);
      expect(keys.rows[0]?.sealed_private_key).toMatch(/^v1\.test1\./);
      expect(JSON.stringify([rows[0], keys.rows[0]])).not.toContain(seedOf(issuerKey));
    });

    it("accepts an Ed25519 did:key and a P-256 did:key with a PKCS#8 PEM key", async () => {
      const ed = ed25519Key();
      expect((await createOffer(issuer, { issuer_did: didKeyOf(ed), issuer_private_key: seedOf(ed) })).statusCode).toBe(
        201,
      );
      const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
      const pem = privateKey.export({ format: "pem", type: "pkcs8" }) as string;
      const did = didKeyOf({ publicJwk: publicKey.export({ format: "jwk" }) } as never);
      expect((await createOffer(issuer, { issuer_did: did, issuer_private_key: pem })).statusCode).toBe(201);
    });

    it("rejects DIDs of other methods or malformed DIDs", async () => {
      for (const did of ["did:web:example.com", "ledger:abc", "did:ledger:", "did:key:"]) {
        await expectError(
          await createOffer(issuer, { issuer_did: did, issuer_private_key: seedOf(issuerKey) }),
          400,
          "issuer_did must be a did:ledger or did:key DID",
        );
      }
    });

    it("rejects private keys that are not a seed or a P-256 PEM", async () => {
      await expectError(
        await createOffer(issuer, { issuer_did: LEDGER_DID, issuer_private_key: "abc" }),
        400,
        "issuer_private_key must be a base64url Ed25519 private key (32 bytes) or a P-256 PKCS#8 PEM key",
      );
      const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
        format: "pem",
        type: "pkcs8",
      });
      const response = await createOffer(issuer, { issuer_did: LEDGER_DID, issuer_private_key: rsa });
      expect(response.json().message).toBe(
        "issuer_private_key must be a base64url Ed25519 private key (32 bytes) or a P-256 PKCS#8 PEM key",
      );
    });

    it("rejects a key that is not the DID's key", async () => {
      const other = ed25519Key();
      await expectError(
        await createOffer(issuer, { issuer_did: LEDGER_DID, issuer_private_key: seedOf(other) }),
        400,
        "issuer_private_key does not match the public key of issuer_did",
      );
      await expectError(
        await createOffer(issuer, { issuer_did: didKeyOf(issuerKey), issuer_private_key: seedOf(other) }),
        400,
        "issuer_private_key does not match the public key of issuer_did",
      );
      await expectError(
        await createOffer(issuer, { issuer_did: "did:key:z6MkBad", issuer_private_key: seedOf(other) }),
        400,
        "issuer_did is not a valid did:key",
      );
    });

    it("rejects did:ledger DIDs that do not resolve or are deactivated", async () => {
      await expectError(
        await createOffer(issuer, { issuer_did: "did:ledger:unknown", issuer_private_key: seedOf(issuerKey) }),
        400,
        "issuer_did does not resolve on the ledger",
      );
      const deactivated = "did:ledger:Deactivated1";
      issuer.doubles.ledger.addDid(deactivated, issuerKey.publicJwk, true);
      await expectError(
        await createOffer(issuer, { issuer_did: deactivated, issuer_private_key: seedOf(issuerKey) }),
        400,
        "issuer_did is deactivated",
      );
    });

    it("answers 503 when the ledger is unreachable", async () => {
      issuer.doubles.ledger.available = false;
      try {
        const response = await createOffer(issuer, { issuer_did: LEDGER_DID, issuer_private_key: seedOf(issuerKey) });
        expect(response.statusCode).toBe(503);
        expect(response.json()).toEqual({ error: "unavailable", message: "Ledger is unavailable" });
        // did:key needs no ledger.
        const ed = ed25519Key();
        expect(
          (await createOffer(issuer, { issuer_did: didKeyOf(ed), issuer_private_key: seedOf(ed) })).statusCode,
        ).toBe(201);
      } finally {
        issuer.doubles.ledger.available = true;
      }
    });
  });
});
