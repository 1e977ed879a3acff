import { notaryV1 } from "@attesto/proto";
import { parseSdJwtPresentation } from "@attesto/protocol";
import { invalidFieldsBody } from "@attesto/runtime/testing";
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ed25519DidKey, type HolderIdentity, ledgerDid, p256DidKey } from "./support/holder-keys.js";
import { type HolderWithIssuer, startHolderWithIssuer } from "./support/holder-with-issuer.js";
import { BADGE_VCT, DIPLOMA_VCT, diplomaClaims, type IssuerDouble, type SigningMode } from "./support/issuer-double.js";
import type { Account, TestHolder } from "./support/test-holder.js";

const BATCH_ID = "5b1f3c1e-8a2d-4c3b-9e4f-0a1b2c3d4e5f";
const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

/** The scheduler's GetAnchorProof of a batch anchored on an EVM chain (values only shaped right). */
const anchoredProof = () => ({
  chain: "eip155:31337",
  state: notaryV1.NotarizationState.ANCHORED,
  salt: "a".repeat(64),
  saltedDigest: "b".repeat(64),
  batch: { batchId: BATCH_ID, root: "c".repeat(64), leafIndex: 1n, treeSize: 2n, inclusionProof: ["d".repeat(64)] },
  evmAnchor: {
    chain: "eip155:31337",
    chainId: 31337n,
    transactionHash: `0x${"e".repeat(64)}`,
    blockNumber: 7n,
    blockHash: `0x${"f".repeat(64)}`,
    from: SIGNER,
    to: SIGNER,
    confirmations: 2,
  },
  anchoredAt: { seconds: BigInt(Date.parse("2026-11-29T00:00:00.000Z") / 1000), nanos: 0 },
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

describe("POST /v1/oid4vci/receive against an OID4VCI issuer that is not Attesto's", () => {
  let holder: TestHolder;
  let issuer: IssuerDouble;
  let account: Account;
  let setup: HolderWithIssuer;
  beforeAll(async () => {
    setup = await startHolderWithIssuer();
    ({ holder, issuer, account } = setup);
  });
  afterAll(() => setup.close());
  beforeEach(() => {
    issuer.reset();
    holder.ledger.down = false;
  });

  const receive = (payload: Record<string, unknown>, who: Account = account) =>
    holder.app.inject({ method: "POST", url: "/v1/oid4vci/receive", headers: who.headers, payload });

  const bodyFor = (link: string, identity: HolderIdentity, extra: Record<string, unknown> = {}) => ({
    credential_offer_uri: link,
    holder_did: identity.did,
    private_key: identity.privateKey,
    notarize_on_ledger: false,
    ...extra,
  });

  describe("the issuer's ids", () => {
    it("keeps the credential_id and offer_id the credential response names, and shows them beside the wallet's id", async () => {
      issuer.behaviour.issuerIds = { credential_id: "0f8e0c1a-issuer-record", offer_id: "4b0d-offer" };
      const response = await receive(bodyFor(issuer.offer().link, ed25519DidKey()));
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toMatchObject({ issuer_credential_id: "0f8e0c1a-issuer-record", issuer_offer_id: "4b0d-offer" });
      expect(body.credential_id).not.toBe(body.issuer_credential_id);
      const list = await holder.app.inject({ method: "GET", url: "/v1/vc", headers: account.headers });
      expect(list.json().credentials.find((c: { id: string }) => c.id === body.credential_id)).toMatchObject({
        issuer_credential_id: "0f8e0c1a-issuer-record",
        issuer_offer_id: "4b0d-offer",
      });
    });

    it("keeps nothing of ids that are not short printable strings", async () => {
      issuer.behaviour.issuerIds = { credential_id: 42, offer_id: `x${" ".repeat(3)}y` };
      const response = await receive(bodyFor(issuer.offer().link, ed25519DidKey()));
      expect(response.statusCode).toBe(201);
      expect(response.json()).toMatchObject({ issuer_credential_id: null, issuer_offer_id: null });
      issuer.behaviour.issuerIds = { credential_id: "a".repeat(256), offer_id: "" };
      const long = await receive(bodyFor(issuer.offer().link, ed25519DidKey()));
      expect(long.json()).toMatchObject({ issuer_credential_id: null, issuer_offer_id: null });
    });
  });

  describe("the whole flow", () => {
    it("201 with the stored credential: DPoP nonce dances at the AS and the credential endpoint, did:key holder (Ed25519)", async () => {
      const identity = ed25519DidKey();
      const response = await receive(bodyFor(issuer.offer().link, identity));
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toEqual({
        credential_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        vct: DIPLOMA_VCT,
        issuer_did: issuer.issuerDid(),
        holder_did: identity.did,
        raw_credential: expect.stringMatching(/^ey[^~]+~/),
        issued_at: expect.stringMatching(ISO),
        expires_at: expect.stringMatching(ISO),
        status: "active",
        // This issuer names neither its credential id nor its offer id.
        issuer_credential_id: null,
        issuer_offer_id: null,
      });
      // Offer -> metadata -> AS metadata -> token (nonce retry) -> nonce -> credential (nonce retry).
      expect(issuer.requests).toEqual([
        expect.stringMatching(/^GET \/offers\//),
        "GET /.well-known/openid-credential-issuer/acme",
        "GET /.well-known/oauth-authorization-server/as",
        "POST /as/token",
        "POST /as/token",
        "POST /nonce",
        "POST /credential",
        "POST /credential",
      ]);
      const request = issuer.credentialRequests[0]!;
      expect(request).toEqual({ credential_configuration_id: "diploma", proofs: { jwt: [expect.any(String)] } });
      const proof = (request.proofs as { jwt: string[] }).jwt[0]!;
      expect(decodeProtectedHeader(proof)).toEqual({
        typ: "openid4vci-proof+jwt",
        alg: "EdDSA",
        kid: `${identity.did}#${identity.did.slice("did:key:".length)}`,
      });
      const parsed = parseSdJwtPresentation(body.raw_credential);
      expect(parsed.claims.cnf).toEqual({ jwk: identity.publicJwk });

      const detail = (
        await holder.app.inject({ method: "GET", url: `/v1/vc/${body.credential_id}`, headers: account.headers })
      ).json();
      expect(detail.claims).toEqual(diplomaClaims);
      expect(detail.raw_credential).toBe(body.raw_credential);
      expect(detail).not.toHaveProperty("reference");
    });

    it("a P-256 did:key holder signs its proof with ES256", async () => {
      const identity = p256DidKey();
      const response = await receive(bodyFor(issuer.offer().link, identity));
      expect(response.statusCode).toBe(201);
      const proof = (issuer.credentialRequests[0]!.proofs as { jwt: string[] }).jwt[0]!;
      expect(decodeProtectedHeader(proof).alg).toBe("ES256");
    });

    it("a did:ledger holder (created here) names its key by the DID document's method id", async () => {
      const identity = await ledgerDid(holder.app, account);
      const response = await receive(bodyFor(issuer.offer().link, identity));
      expect(response.statusCode).toBe(201);
      const proof = (issuer.credentialRequests[0]!.proofs as { jwt: string[] }).jwt[0]!;
      expect(decodeProtectedHeader(proof)).toEqual({
        alg: "EdDSA",
        typ: "openid4vci-proof+jwt",
        kid: `${identity.did}#key-1`,
      });
      expect(response.json().holder_did).toBe(identity.did);
    });

    it.each<SigningMode>(["did:key", "did:ledger", "x5c", "jwt-vc-issuer"])(
      "verifies an issuer signing with %s",
      async (signing) => {
        issuer.behaviour.signing = signing;
        const response = await receive(bodyFor(issuer.offer().link, ed25519DidKey()));
        expect(response.statusCode, response.body).toBe(201);
        expect(response.json().issuer_did).toBe(issuer.issuerDid());
      },
    );

    it("credential_configuration_id picks one of several offered; the first is the default", async () => {
      const picked = await receive(
        bodyFor(issuer.offer({ configurationIds: ["diploma", "badge"] }).link, ed25519DidKey(), {
          credential_configuration_id: "badge",
        }),
      );
      expect(picked.statusCode).toBe(201);
      expect(picked.json().vct).toBe(BADGE_VCT);
      const first = await receive(
        bodyFor(issuer.offer({ configurationIds: ["badge", "diploma"] }).link, ed25519DidKey()),
      );
      expect(first.json().vct).toBe(BADGE_VCT);
      const notOffered = await receive(
        bodyFor(issuer.offer({ configurationIds: ["diploma"] }).link, ed25519DidKey(), {
          credential_configuration_id: "badge",
        }),
      );
      expect(notOffered.statusCode).toBe(400);
      expect(notOffered.json()).toEqual({
        error: "invalid_offer",
        message: "credential_configuration_id is not offered",
      });
    });

    it("an offer by value works too; user_pin is sent as tx_code", async () => {
      const withPin = issuer.offer({ byValue: true, txCode: "493536" });
      expect((await receive(bodyFor(withPin.link, ed25519DidKey(), { user_pin: "493536" }))).statusCode).toBe(201);
      const missingPin = await receive(bodyFor(issuer.offer({ txCode: "1" }).link, ed25519DidKey()));
      expect(missingPin.statusCode).toBe(400);
      expect(missingPin.json().message).toBe("the offer requires a transaction code: send user_pin");
      const wrongPin = await receive(bodyFor(issuer.offer({ txCode: "1" }).link, ed25519DidKey(), { user_pin: "2" }));
      expect(wrongPin.statusCode).toBe(400);
      expect(wrongPin.json().error).toBe("invalid_grant");
    });

    it("takes the transaction code as tx_code too (OID4VCI's name); both only when equal", async () => {
      const withPin = issuer.offer({ txCode: "493536" });
      expect((await receive(bodyFor(withPin.link, ed25519DidKey(), { tx_code: "493536" }))).statusCode).toBe(201);
      const both = issuer.offer({ txCode: "493536" });
      expect(
        (await receive(bodyFor(both.link, ed25519DidKey(), { tx_code: "493536", user_pin: "493536" }))).statusCode,
      ).toBe(201);
      const differ = await receive(
        bodyFor(issuer.offer({ txCode: "1" }).link, ed25519DidKey(), { tx_code: "1", user_pin: "2" }),
      );
      expect(differ.statusCode).toBe(400);
      expect(differ.json()).toEqual({
        error: "invalid_request",
        message: "tx_code must equal user_pin when both are given",
        errors: [{ field: "tx_code", message: "must equal user_pin when both are given" }],
      });
    });

    it("without DPoP binding (Bearer token) and without nonce dances; legacy `credential` response", async () => {
      issuer.behaviour.bearerTokens = true;
      issuer.behaviour.tokenDpopNonce = false;
      issuer.behaviour.legacyResponse = true;
      expect((await receive(bodyFor(issuer.offer().link, ed25519DidKey()))).statusCode).toBe(201);
      expect(issuer.requests.filter((r) => r === "POST /credential")).toHaveLength(1);
    });

    it("sends no DPoP proof to an authorization server that does not advertise DPoP (RFC 9449 §5.1), and receives", async () => {
      issuer.behaviour.dpopSupported = false; // it refuses any token request carrying a DPoP header
      expect((await receive(bodyFor(issuer.offer().link, ed25519DidKey()))).statusCode).toBe(201);
      expect(issuer.requests.filter((r) => r === "POST /as/token")).toHaveLength(1);
      expect(issuer.requests.filter((r) => r === "POST /credential")).toHaveLength(1);
    });

    it("binds by jwk when the issuer does not take DIDs", async () => {
      issuer.behaviour.bindingMethods = ["jwk"];
      const identity = p256DidKey();
      expect((await receive(bodyFor(issuer.offer().link, identity))).statusCode).toBe(201);
      const proof = (issuer.credentialRequests[0]!.proofs as { jwt: string[] }).jwt[0]!;
      expect(decodeProtectedHeader(proof)).toEqual({
        alg: "ES256",
        typ: "openid4vci-proof+jwt",
        jwk: identity.publicJwk,
      });
    });

    it("notarize_on_ledger (default true) asks for is_on_chain and keeps the reference", async () => {
      const response = await receive({
        credential_offer_uri: issuer.offer().link,
        holder_did: ed25519DidKey().did,
        private_key: "",
      });
      expect(response.statusCode).toBe(400); // private_key is required
      const identity = ed25519DidKey();
      const notarized = await receive({
        credential_offer_uri: issuer.offer().link,
        holder_did: identity.did,
        private_key: identity.privateKey,
      });
      expect(notarized.statusCode).toBe(201);
      expect(issuer.credentialRequests.at(-1)).toEqual({
        credential_configuration_id: "diploma",
        proofs: { jwt: [expect.any(String)] },
        is_on_chain: true,
      });
      const detail = (
        await holder.app.inject({
          method: "GET",
          url: `/v1/vc/${notarized.json().credential_id}`,
          headers: account.headers,
        })
      ).json();
      const { objectId, digest } = issuer.notarized.at(-1)!;
      expect(detail.reference).toEqual({
        block_chain: "LEDGER",
        object_id: objectId,
        state: "pending",
        issuer_salt: expect.stringMatching(/^[0-9a-f]{64}$/),
        digest,
      });
    });

    it("a notarized credential's reference completes once the scheduler reports its anchor, and is kept", async () => {
      const identity = ed25519DidKey();
      const received = await receive({
        credential_offer_uri: issuer.offer().link,
        holder_did: identity.did,
        private_key: identity.privateKey,
      });
      expect(received.statusCode).toBe(201);
      const id = received.json().credential_id as string;
      const detail = async () =>
        (await holder.app.inject({ method: "GET", url: `/v1/vc/${id}`, headers: account.headers })).json();
      const { objectId, digest } = issuer.notarized.at(-1)!;
      const pending = (await detail()).reference;
      // The scheduler cannot be reached: still pending, the detail still answers.
      holder.notary.unavailable = true;
      expect((await detail()).reference).toEqual(pending);
      holder.notary.unavailable = false;
      // The scheduler knows the object id for another digest only: never completes this credential.
      holder.notary.anchors.set(objectId, { digest: "0".repeat(64), proof: anchoredProof() });
      expect((await detail()).reference).toEqual(pending);
      // Still pending at the scheduler: nothing kept.
      holder.notary.anchors.set(objectId, {
        digest,
        proof: { ...anchoredProof(), state: notaryV1.NotarizationState.PENDING },
      });
      expect((await detail()).reference).toEqual(pending);
      holder.notary.anchors.set(objectId, { digest, proof: anchoredProof() });
      const anchored = {
        ...pending,
        state: "anchored",
        chain_id: 31337,
        salt: "a".repeat(64),
        salted_digest: "b".repeat(64),
        inclusion_proof: {
          batch_id: BATCH_ID,
          root: "c".repeat(64),
          leaf_index: 1,
          tree_size: 2,
          path: ["d".repeat(64)],
        },
        transaction_hash: `0x${"e".repeat(64)}`,
        block_number: 7,
        block_hash: `0x${"f".repeat(64)}`,
        from: SIGNER,
        to: SIGNER,
        confirmations: 2,
        anchored_at: "2026-11-29T00:00:00.000Z",
      };
      expect((await detail()).reference).toEqual(anchored);
      // Kept: the scheduler is not asked again.
      const calls = holder.notary.calls;
      holder.notary.unavailable = true;
      expect((await detail()).reference).toEqual(anchored);
      expect(holder.notary.calls).toBe(calls);
      holder.notary.unavailable = false;
    });
  });

  describe("the ledger", () => {
    it("503 before anything is sent to the issuer when notarize_on_ledger is true and the ledger is down (the code is not burned)", async () => {
      const identity = ed25519DidKey();
      const offer = issuer.offer();
      holder.ledger.down = true;
      const refused = await receive({
        credential_offer_uri: offer.link,
        holder_did: identity.did,
        private_key: identity.privateKey,
      });
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toEqual({ error: "unavailable", message: "Ledger is unavailable" });
      expect(issuer.requests).toEqual([]);
      holder.ledger.down = false;
      const retried = await receive({
        credential_offer_uri: offer.link,
        holder_did: identity.did,
        private_key: identity.privateKey,
      });
      expect(retried.statusCode).toBe(201);
    });

    it("notarize_on_ledger: false works while the ledger is down", async () => {
      holder.ledger.down = true;
      issuer.behaviour.signing = "x5c";
      const response = await receive(bodyFor(issuer.offer().link, ed25519DidKey()));
      expect(response.statusCode).toBe(201);
      expect(issuer.credentialRequests[0]).toEqual({
        credential_configuration_id: "diploma",
        proofs: { jwt: [expect.any(String)] },
      });
    });

    it("503 when the issuer answers 503 (its ledger is down)", async () => {
      issuer.behaviour.credentialFailure = { status: 503, error: "unavailable", description: "Ledger is unavailable" };
      const response = await receive(bodyFor(issuer.offer().link, ed25519DidKey()));
      expect(response.statusCode).toBe(503);
      expect(response.json().message).toContain("the credential issuer is unavailable");
    });
  });

  describe("refusals", () => {
    it("400 invalid_grant for a code already used (a second receive of the same offer)", async () => {
      const { link } = issuer.offer();
      expect((await receive(bodyFor(link, ed25519DidKey()))).statusCode).toBe(201);
      const again = await receive(bodyFor(link, ed25519DidKey()));
      expect(again.statusCode).toBe(400);
      expect(again.json()).toEqual({
        error: "invalid_grant",
        // The token endpoint's own error and description follow the holder's sentence.
        message:
          "the pre-authorized code was refused (expired, already used or unknown): invalid_grant: code expired or used",
      });
    });

    it("400 invalid_offer for an expired offer, before any token request", async () => {
      const response = await receive(bodyFor(issuer.offer({ status: 410 }).link, ed25519DidKey()));
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe("invalid_offer");
      expect(issuer.requests.some((r) => r.includes("token"))).toBe(false);
    });

    it("400 invalid_proof when the issuer refuses the proof", async () => {
      issuer.behaviour.credentialFailure = {
        status: 400,
        error: "invalid_proof",
        description: "proof signature is invalid",
      };
      const response = await receive(bodyFor(issuer.offer().link, ed25519DidKey()));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: "invalid_proof",
        message: "the credential issuer refused the key proof (invalid_proof: proof signature is invalid)",
      });
    });

    it("400 invalid_proof before redeeming when the configuration does not take the key's algorithm", async () => {
      issuer.behaviour.proofAlgs = ["ES256"];
      const response = await receive(bodyFor(issuer.offer().link, ed25519DidKey()));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: "invalid_proof",
        message: "the credential configuration does not accept EdDSA key proofs (accepts ES256)",
      });
      expect(issuer.requests.some((r) => r.includes("token"))).toBe(false);
    });

    it.each([
      ["signature", "the issuer's signature does not verify"],
      ["cnf", "the credential is bound to another key than the holder's (cnf.jwk)"],
      ["vct", "the credential's vct is not the one of the credential configuration"],
      ["iss", "the credential's iss is not the credential issuer of the offer"],
      ["typ", "the credential's typ must be 'dc+sd-jwt'"],
      ["expired", "the credential has expired"],
      ["kb", "an issued credential must not carry a key binding JWT"],
      ["foreign-did-key", "the issuer's JWT VC metadata has no key for the credential's kid"],
      ["other-did-kid", "the credential's kid names another DID than its iss"],
      ["x5c-san", "the issuer certificate's subjectAltName does not name the credential's iss"],
    ] as const)(
      "400 invalid_credential (nothing stored) when the credential's %s is wrong",
      async (tamper, message) => {
        issuer.behaviour.tamper = tamper;
        const before = (await holder.app.inject({ method: "GET", url: "/v1/vc", headers: account.headers })).json()
          .credentials.length;
        const response = await receive(bodyFor(issuer.offer().link, ed25519DidKey()));
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({ error: "invalid_credential", message });
        const after = (await holder.app.inject({ method: "GET", url: "/v1/vc", headers: account.headers })).json()
          .credentials.length;
        expect(after).toBe(before);
      },
    );

    it("400 invalid_holder_key: a did:ledger DID of another holder, a key that is not the DID's, a malformed key, another DID method", async () => {
      const other = await holder.account();
      const foreign = await ledgerDid(holder.app, other);
      const link = issuer.offer().link;
      const cases: Array<[Record<string, unknown>, string]> = [
        [bodyFor(link, foreign), "holder_did is not one of your DIDs (create or import it first)"],
        [
          bodyFor(link, { ...ed25519DidKey(), privateKey: ed25519DidKey().privateKey }),
          "private_key does not match holder_did",
        ],
        [
          bodyFor(link, { ...ed25519DidKey(), privateKey: "short" }),
          "private_key must be a base64url Ed25519 private key (32 bytes)",
        ],
        [
          bodyFor(link, { ...p256DidKey(), privateKey: "AAAA" }),
          "private_key must be a P-256 private key: base64url raw d (32 bytes) or PEM",
        ],
        [
          bodyFor(link, { ...ed25519DidKey(), did: "did:web:example.com" }),
          "holder_did must be a did:ledger or did:key DID",
        ],
      ];
      for (const [payload, message] of cases) {
        const response = await receive(payload);
        expect(response.statusCode, message).toBe(400);
        expect(response.json()).toEqual({ error: "invalid_holder_key", message });
      }
      expect(issuer.requests).toEqual([]);
    });

    it("400 for a body without the required fields", async () => {
      for (const [payload, message] of [
        [{ holder_did: "did:key:x", private_key: "k" }, "credential_offer_uri is required"],
        [{ credential_offer_uri: "x", private_key: "k" }, "holder_did is required"],
        [{ credential_offer_uri: "x", holder_did: "did:key:x" }, "private_key is required"],
        [
          { credential_offer_uri: "x", holder_did: "d", private_key: "k", notarize_on_ledger: "yes" },
          "notarize_on_ledger must be a boolean",
        ],
      ] as const) {
        const response = await receive(payload as Record<string, unknown>);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual(invalidFieldsBody(message));
      }
    });
  });
});
