import { didKeyFromPublicJwk, ed25519PublicJwk, generateEd25519Jwk, parseSdJwtPresentation } from "@attesto/protocol";
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ed25519DidKey, p256DidKey } from "./support/holder-keys.js";
import { type Platform, startPlatform } from "./support/platform.js";
import {
  applyTenant,
  call,
  createOffer,
  createTenantDid,
  type HolderClient,
  holderAccount,
  type Tenant,
  universityDiplomaClaims,
} from "./support/platform-client.js";

/**
 * End to end against the real services in-process (ledger, schema registry, trust registry, auth
 * server, credential issuer, verifier, holder on their own ports and schemas): an organization
 * issues through both signing paths, a holder receives, lists, deletes, and presents selectively
 * to the verifier, which reports exactly the disclosed claims.
 */
describe("holder against the platform", () => {
  let platform: Platform;
  let tenant: Tenant;
  let issuerDid: { did: string; privateKey: string };
  let holder: HolderClient;
  let ledgerHolder: { did: string; privateKey: string };
  const vct = () => `${platform.urls["schema-registry"]}/schemas/university-diploma/v1`;
  const issuerId = () => `${platform.urls["credential-issuer"]}/${tenant.tenant}`;

  beforeAll(async () => {
    platform = await startPlatform();
    tenant = await applyTenant(platform);
    issuerDid = await createTenantDid(platform, tenant);
    holder = await holderAccount(platform);
    const created = await holder.post<{ did: string; private_key: string }>("/v1/did", { method: "LEDGER" });
    expect(created.status).toBe(201);
    ledgerHolder = { did: created.body.did, privateKey: created.body.private_key };
  }, 180_000);
  afterAll(async () => {
    await platform?.close();
  });

  const receive = (link: string, identity: { did: string; privateKey: string }, extra: Record<string, unknown> = {}) =>
    holder.post<Record<string, string>>("/v1/oid4vci/receive", {
      credential_offer_uri: link,
      holder_did: identity.did,
      private_key: identity.privateKey,
      ...extra,
    });

  let didSigned: Record<string, string>;
  let x509Signed: Record<string, string>;
  let p256Holder: { did: string; privateKey: string };

  it("offer-details describes the tenant's offer (issuer metadata by the well-known rule)", async () => {
    const offer = await createOffer(platform, tenant, issuerDid);
    const details = await holder.post("/v1/oid4vci/offer-details", { credential_offer_uri: offer.deep_link });
    expect(details.status).toBe(200);
    expect(details.body).toEqual({
      issuer: issuerId(),
      issuer_name: tenant.name,
      issuer_logo_uri: null,
      credential_configurations: expect.arrayContaining([
        {
          id: "university-diploma",
          format: "dc+sd-jwt",
          vct: vct(),
          display: { name: "University Diploma", locale: "en-US" },
        },
      ]),
      pre_authorized_code_grant: { pre_authorized_code: expect.any(String), user_pin_required: false },
      expires_at: expect.stringMatching(/Z$/),
    });
  });

  it("DID signing path: a did:ledger holder receives a notarized credential (reference kept)", async () => {
    const offer = await createOffer(platform, tenant, issuerDid);
    const response = await receive(offer.deep_link, ledgerHolder);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    didSigned = response.body;
    expect(didSigned).toMatchObject({
      vct: vct(),
      issuer_did: issuerDid.did,
      holder_did: ledgerHolder.did,
      status: "active",
    });
    expect(decodeProtectedHeader(didSigned.raw_credential!.split("~")[0]!)).toMatchObject({
      typ: "dc+sd-jwt",
      alg: "EdDSA",
      kid: `${issuerDid.did}#key-1`,
    });
    const detail = await holder.get<Record<string, unknown>>(`/v1/vc/${didSigned.credential_id}`);
    expect(detail.body).toMatchObject({
      claims: universityDiplomaClaims,
      raw_credential: didSigned.raw_credential,
      reference: { block_chain: "LEDGER", object_id: expect.any(String) },
    });
  });

  /** What the issuer's admin API shows of the wallet's notifications for the credentials of one offer. */
  const notificationsOf = async (offerId: string) => {
    const listed = await call<{ credentials: Array<{ notification: { event: string } | null }> }>(
      `${platform.urls["credential-issuer"]}/v1/credentials?offer_id=${offerId}`,
      { headers: { "x-api-key": tenant.apiKey } },
    );
    expect(listed.status).toBe(200);
    return listed.body.credentials.map((credential) => credential.notification?.event ?? null);
  };

  it("X.509 signing path (HAIP, DPoP-bound token): a P-256 did:key holder receives without notarization", async () => {
    p256Holder = p256DidKey();
    const offer = await createOffer(platform, tenant);
    const response = await receive(offer.deep_link, p256Holder, { notarize_on_ledger: false });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    x509Signed = response.body;
    expect(x509Signed).toMatchObject({ vct: vct(), issuer_did: issuerId(), holder_did: p256Holder.did });
    const header = decodeProtectedHeader(x509Signed.raw_credential!.split("~")[0]!);
    expect(header).toMatchObject({ typ: "dc+sd-jwt", alg: "ES256" });
    expect(header.x5c?.length).toBeGreaterThan(0);
    expect(parseSdJwtPresentation(x509Signed.raw_credential!).claims.cnf).toMatchObject({
      jwk: { kty: "EC", crv: "P-256" },
    });
    const detail = await holder.get<Record<string, unknown>>(`/v1/vc/${x509Signed.credential_id}`);
    expect(detail.body).not.toHaveProperty("reference");
    // The holder told the issuer (notification endpoint, DPoP-bound token) before answering.
    expect(await notificationsOf(offer.offer_id)).toEqual(["credential_accepted"]);
  });

  it("a pre-authorized code is single use: receiving the same offer again is 400 invalid_grant", async () => {
    const offer = await createOffer(platform, tenant);
    expect((await receive(offer.deep_link, ed25519DidKey(), { notarize_on_ledger: false })).status).toBe(201);
    const again = await receive(offer.deep_link, ed25519DidKey(), { notarize_on_ledger: false });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
  });

  it("list, detail and soft delete; another holder sees none of it", async () => {
    const listed = await holder.get<{ credentials: Array<{ id: string }> }>("/v1/vc");
    const ids = listed.body.credentials.map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining([didSigned.credential_id, x509Signed.credential_id]));
    const extraOffer = await createOffer(platform, tenant);
    const extra = (await receive(extraOffer.deep_link, ed25519DidKey(), { notarize_on_ledger: false })).body
      .credential_id!;
    expect(await notificationsOf(extraOffer.offer_id)).toEqual(["credential_accepted"]);
    expect((await holder.delete(`/v1/vc/${extra}`)).status).toBe(204);
    expect(await notificationsOf(extraOffer.offer_id)).toEqual(["credential_deleted"]);
    expect((await holder.get("/v1/vc")).body.credentials).not.toContainEqual(expect.objectContaining({ id: extra }));
    expect((await holder.get(`/v1/vc/${extra}`)).status).toBe(404);
    const stranger = await holderAccount(platform, "Eve");
    expect((await stranger.get<{ credentials: unknown[] }>("/v1/vc")).body.credentials).toEqual([]);
    expect((await stranger.get(`/v1/vc/${didSigned.credential_id}`)).status).toBe(404);
    expect((await stranger.delete(`/v1/vc/${didSigned.credential_id}`)).status).toBe(404);
    expect((await stranger.delete(`/v1/did/${encodeURIComponent(ledgerHolder.did)}`)).status).toBe(404);
  });

  describe("presentation to the verifier", () => {
    const verifierKey = generateEd25519Jwk();
    const verifierDid = didKeyFromPublicJwk(ed25519PublicJwk(verifierKey));

    async function authorizationRequest(responseMode: "direct_post" | "direct_post.jwt") {
      const response = await call<{ session_id: string; authorization_request: string }>(
        `${platform.urls.verifier}/v1/verifier/authorization-request`,
        {
          headers: { "x-api-key": tenant.apiKey },
          body: {
            dcql_query: {
              credentials: [
                {
                  id: "diploma",
                  format: "dc+sd-jwt",
                  meta: { vct_values: [vct()] },
                  claims: [{ path: ["given_name"] }, { path: ["degree", "name"] }],
                },
              ],
            },
            verifier_private_key: verifierKey.d,
            verifier_client_id: verifierDid,
            response_mode: responseMode,
            client_metadata: { client_name: "Acme Rentals" },
            redirect_uri: "https://rentals.example/done",
          },
        },
      );
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body;
    }

    const result = async (sessionId: string) =>
      (
        await call<Record<string, unknown>>(`${platform.urls.verifier}/v1/verifier/result/${sessionId}`, {
          headers: { "x-api-key": tenant.apiKey },
        })
      ).body;

    for (const [mode, credential] of [
      ["direct_post", () => ({ id: didSigned.credential_id!, identity: ledgerHolder })],
      ["direct_post.jwt", () => ({ id: x509Signed.credential_id!, identity: p256Holder })],
    ] as const) {
      it(`${mode}: request-details matches, the holder discloses two claims, the verifier reports exactly those`, async () => {
        const { id, identity } = credential();
        const session = await authorizationRequest(mode);
        const details = await holder.post<Record<string, unknown>>("/v1/oid4vp/request-details", {
          authorization_request_uri: session.authorization_request,
        });
        expect(details.status, JSON.stringify(details.body)).toBe(200);
        expect(details.body).toMatchObject({
          client_id: `decentralized_identifier:${verifierDid}`,
          client_metadata: expect.objectContaining({ client_name: "Acme Rentals" }),
          response_mode: mode,
          response_uri: `${platform.urls.verifier}/v1/verifier/presentation`,
          matching_credentials: expect.arrayContaining([
            {
              credential_id: id,
              query_id: "diploma",
              vct: vct(),
              claims: { given_name: "Ada", degree: { name: "Mathematics" } },
              credential_status: "valid",
            },
          ]),
        });

        const presented = await holder.post("/v1/oid4vp/presentation", {
          authorization_request_uri: session.authorization_request,
          selected_credentials: [
            { credential_id: id, query_id: "diploma", disclosed_claims: ["given_name", "degree.name"] },
          ],
          holder_did: identity.did,
          private_key: identity.privateKey,
        });
        expect(presented.status, JSON.stringify(presented.body)).toBe(200);
        expect(presented.body).toEqual({
          success: true,
          redirect_uri: `https://rentals.example/done?session_id=${session.session_id}`,
        });

        const verification = await result(session.session_id);
        expect(verification, JSON.stringify(verification)).toMatchObject({ status: "completed" });
        expect((verification.presentation_metadata as { claims: unknown }).claims).toEqual({
          given_name: "Ada",
          degree: { name: "Mathematics" },
        });
      });
    }

    it("the issuer revokes: the holder reads it from the real status list; the credential is left out of presentation unless include_revoked", async () => {
      const identity = p256DidKey();
      const offer = await createOffer(platform, tenant);
      const received = await receive(offer.deep_link, identity, { notarize_on_ledger: false });
      expect(received.status, JSON.stringify(received.body)).toBe(201);
      const id = received.body.credential_id!;
      const statusOf = async () =>
        (await holder.get<{ credential_status: string }>(`/v1/vc/${id}`)).body.credential_status;
      expect(await statusOf()).toBe("valid");
      const listed = await holder.get<{ credentials: Array<{ id: string; credential_status: string }> }>("/v1/vc");
      expect(listed.body.credentials.find((c) => c.id === id)?.credential_status).toBe("valid");

      const issued = await call<{ credentials: Array<{ id: string }> }>(
        `${platform.urls["credential-issuer"]}/v1/credentials?offer_id=${offer.offer_id}`,
        { headers: { "x-api-key": tenant.apiKey } },
      );
      const revoked = await call(
        `${platform.urls["credential-issuer"]}/v1/credentials/${issued.body.credentials[0]!.id}`,
        {
          method: "PATCH",
          headers: { "x-api-key": tenant.apiKey },
          body: { status: "revoked" },
        },
      );
      expect(revoked.status).toBe(200);
      // Within the list's ttl (1 s here) plus the time it takes.
      const deadline = Date.now() + 15_000;
      while ((await statusOf()) !== "revoked" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(await statusOf()).toBe("revoked");
      const listedAfter = await holder.get<{ credentials: Array<{ id: string; credential_status: string }> }>("/v1/vc");
      expect(listedAfter.body.credentials.find((c) => c.id === id)?.credential_status).toBe("revoked");

      const session = await authorizationRequest("direct_post");
      const details = await holder.post<{
        matching_credentials: Array<{ credential_id: string }>;
        excluded_credentials: unknown[];
      }>("/v1/oid4vp/request-details", { authorization_request_uri: session.authorization_request });
      expect(details.body.matching_credentials.map((m) => m.credential_id)).not.toContain(id);
      expect(details.body.excluded_credentials).toContainEqual({
        credential_id: id,
        query_id: "diploma",
        vct: vct(),
        reason: "revoked",
      });
      const body = {
        authorization_request_uri: session.authorization_request,
        selected_credentials: [{ credential_id: id, query_id: "diploma" }],
        holder_did: identity.did,
        private_key: identity.privateKey,
      };
      const refused = await holder.post<{ error: string }>("/v1/oid4vp/presentation", body);
      expect([refused.status, refused.body.error]).toEqual([400, "no_matching_credentials"]);
      // Asked for explicitly, it is presented; the verifier reads the same list (it caches none on this
      // platform: STATUS_LIST_MAX_CACHE_SECONDS=0) and refuses it.
      const presented = await holder.post("/v1/oid4vp/presentation", { ...body, include_revoked: true });
      expect(presented.status, JSON.stringify(presented.body)).toBe(200);
      const verification = await result(session.session_id);
      expect(verification, JSON.stringify(verification.check_results)).toMatchObject({ status: "failed" });
      expect(verification.check_results).toContainEqual(
        expect.objectContaining({ check: "revocation", status: "failed", reason_code: "revoked" }),
      );
    });

    it("a second submission to the same session is refused (400)", async () => {
      const session = await authorizationRequest("direct_post");
      const body = {
        authorization_request_uri: session.authorization_request,
        selected_credentials: [{ credential_id: didSigned.credential_id, query_id: "diploma" }],
        holder_did: ledgerHolder.did,
        private_key: ledgerHolder.privateKey,
      };
      expect((await holder.post("/v1/oid4vp/presentation", body)).status).toBe(200);
      const again = await holder.post("/v1/oid4vp/presentation", body);
      expect(again.status).toBe(400);
    });
  });

  describe("with the ledger down", () => {
    beforeAll(async () => {
      await platform.stopLedger();
    });
    afterAll(async () => {
      await platform.startLedger();
    });

    it("notarize_on_ledger true: 503, and the offer is still usable once the ledger is back", async () => {
      const offer = await createOffer(platform, tenant);
      const refused = await receive(offer.deep_link, ed25519DidKey());
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ error: "unavailable", message: "Ledger is unavailable" });
      const plain = await receive(offer.deep_link, ed25519DidKey(), { notarize_on_ledger: false });
      expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    });

    it("POST /v1/did: 503", async () => {
      const response = await holder.post("/v1/did", { method: "LEDGER" });
      expect(response.status).toBe(503);
    });
  });

  it("mDL (mso_mdoc, X.509 path): a P-256 holder receives it, lists its decoded elements, and sees it revoked", async () => {
    const mdlHolder = p256DidKey();
    const portrait = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70]).toString("base64url");
    const elements = {
      family_name: "Lovelace",
      given_name: "Ada",
      birth_date: "1815-12-10",
      issuing_country: "UT",
      portrait,
      age_over_18: true,
    };
    const offer = await call<{ deep_link: string }>(`${platform.urls["credential-issuer"]}/v1/offers`, {
      headers: { "x-api-key": tenant.apiKey },
      body: {
        credential: { config_id: "org.iso.18013.5.1.mDL", claims: { "org.iso.18013.5.1": elements } },
        flow: "pre-authorized",
      },
    });
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    const response = await receive(offer.body.deep_link, mdlHolder, { notarize_on_ledger: false });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toMatchObject({
      vct: "org.iso.18013.5.1.mDL",
      issuer_did: issuerId(),
      holder_did: mdlHolder.did,
    });
    const id = response.body.credential_id!;
    const listed = await holder.get<{ credentials: Array<Record<string, unknown>> }>("/v1/vc");
    expect(listed.body.credentials.find((credential) => credential.id === id)).toMatchObject({
      format: "mso_mdoc",
      doctype: "org.iso.18013.5.1.mDL",
      vct: "org.iso.18013.5.1.mDL",
    });
    const detail = await holder.get<Record<string, unknown>>(`/v1/vc/${id}`);
    expect(detail.body).toMatchObject({
      format: "mso_mdoc",
      claims: { "org.iso.18013.5.1": elements },
      raw_credential: response.body.raw_credential,
    });
    const issuerCredentialId = detail.body.issuer_credential_id as string;
    const revoked = await call(`${platform.urls["credential-issuer"]}/v1/credentials/${issuerCredentialId}`, {
      method: "PATCH",
      headers: { "x-api-key": tenant.apiKey },
      body: { status: "revoked" },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    // The MSO's status reference names the tenant's list: read again once the list's ttl (1 s here) has passed.
    const statusOf = async () => (await holder.get<Record<string, unknown>>(`/v1/vc/${id}`)).body.credential_status;
    const deadline = Date.now() + 10_000;
    while ((await statusOf()) !== "revoked" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await statusOf()).toBe("revoked");
  });

  /**
   * An mdoc from offer to a completed verification with our holder: the tenant offers it (X.509
   * path), a P-256 holder receives it, the verifier asks `asked` only, the holder matches and
   * presents, and the verifier reports exactly those elements.
   */
  async function mdocEndToEnd(input: {
    doctype: string;
    namespace: string;
    elements: Record<string, unknown>;
    asked: string[];
    responseMode: "direct_post" | "direct_post.jwt";
  }) {
    const mdocHolder = p256DidKey();
    const NS = input.namespace;
    const offer = await call<{ deep_link: string }>(`${platform.urls["credential-issuer"]}/v1/offers`, {
      headers: { "x-api-key": tenant.apiKey },
      body: { credential: { config_id: input.doctype, claims: { [NS]: input.elements } }, flow: "pre-authorized" },
    });
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    const received = await receive(offer.body.deep_link, mdocHolder, { notarize_on_ledger: false });
    expect(received.status, JSON.stringify(received.body)).toBe(201);
    const id = received.body.credential_id!;
    const askedElements = Object.fromEntries(input.asked.map((element) => [element, input.elements[element]]));

    const verifierKey = generateEd25519Jwk();
    const session = await call<{ session_id: string; authorization_request: string }>(
      `${platform.urls.verifier}/v1/verifier/authorization-request`,
      {
        headers: { "x-api-key": tenant.apiKey },
        body: {
          dcql_query: {
            credentials: [
              {
                id: "doc",
                format: "mso_mdoc",
                meta: { doctype_value: input.doctype },
                claims: input.asked.map((element) => ({ path: [NS, element] })),
              },
            ],
          },
          verifier_private_key: verifierKey.d,
          verifier_client_id: didKeyFromPublicJwk(ed25519PublicJwk(verifierKey)),
          response_mode: input.responseMode,
        },
      },
    );
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const details = await holder.post<{ matching_credentials: Array<Record<string, unknown>> }>(
      "/v1/oid4vp/request-details",
      { authorization_request_uri: session.body.authorization_request },
    );
    expect(details.status, JSON.stringify(details.body)).toBe(200);
    expect(details.body.matching_credentials).toContainEqual(
      expect.objectContaining({ credential_id: id, query_id: "doc", claims: { [NS]: askedElements } }),
    );
    const presented = await holder.post("/v1/oid4vp/presentation", {
      authorization_request_uri: session.body.authorization_request,
      selected_credentials: [{ credential_id: id, query_id: "doc" }],
      holder_did: mdocHolder.did,
      private_key: mdocHolder.privateKey,
    });
    expect(presented.status, JSON.stringify(presented.body)).toBe(200);
    const verification = (
      await call<Record<string, unknown>>(`${platform.urls.verifier}/v1/verifier/result/${session.body.session_id}`, {
        headers: { "x-api-key": tenant.apiKey },
      })
    ).body;
    expect(verification, JSON.stringify(verification)).toMatchObject({ status: "completed" });
    expect((verification.presentation_metadata as { claims: unknown }).claims).toEqual({ [NS]: askedElements });
  }

  it("mDL end to end: offer -> holder receives -> presents age_over_18 only to our verifier -> completed", async () => {
    await mdocEndToEnd({
      doctype: "org.iso.18013.5.1.mDL",
      namespace: "org.iso.18013.5.1",
      elements: {
        family_name: "Lovelace",
        given_name: "Ada",
        birth_date: "1815-12-10",
        issuing_country: "UT",
        age_over_18: true,
      },
      asked: ["age_over_18"],
      responseMode: "direct_post",
    });
  });

  it("EU PID (eu.europa.ec.eudi.pid.1) end to end: presents family_name and age_over_18 only (direct_post.jwt) -> completed", async () => {
    await mdocEndToEnd({
      doctype: "eu.europa.ec.eudi.pid.1",
      namespace: "eu.europa.ec.eudi.pid.1",
      elements: {
        family_name: "Lovelace",
        given_name: "Ada",
        birth_date: "1815-12-10",
        nationality: ["GB"],
        age_over_18: true,
      },
      asked: ["family_name", "age_over_18"],
      responseMode: "direct_post.jwt",
    });
  });
});
