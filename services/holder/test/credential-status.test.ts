import { decodeCompactJwt } from "@attesto/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { credentialStatusOf } from "../src/domain/credentials/credential-status.js";
import { ed25519DidKey, type HolderIdentity } from "./support/holder-keys.js";
import { DIPLOMA_VCT, type IssuerDouble, type SigningMode, startIssuerDouble } from "./support/issuer-double.js";
import { type Account, startTestHolder, type TestHolder } from "./support/test-holder.js";
import { startVerifierDouble, type VerifierDouble } from "./support/verifier-double.js";

const diplomaQuery = {
  credentials: [
    { id: "diploma", format: "dc+sd-jwt", meta: { vct_values: [DIPLOMA_VCT] }, claims: [{ path: ["given_name"] }] },
  ],
};

const silentLog = { warn() {} };

/** The `status.status_list.idx` of a raw SD-JWT VC. */
const statusIdxOf = (raw: string) =>
  (decodeCompactJwt(raw.split("~")[0]!, "x", "issuer JWT").payload as { status: { status_list: { idx: number } } })
    .status.status_list.idx;

describe("credential status in the wallet: Token Status List, listing, presentation, notifications", () => {
  let holder: TestHolder;
  let issuer: IssuerDouble;
  let verifier: VerifierDouble;
  let account: Account;
  let identity: HolderIdentity;

  beforeAll(async () => {
    holder = await startTestHolder();
    issuer = await startIssuerDouble(holder.ledger);
    verifier = await startVerifierDouble(holder.ledger);
    account = await holder.account();
    identity = ed25519DidKey();
  });
  afterAll(async () => {
    await verifier.close();
    await issuer.close();
    await holder.close();
  });
  beforeEach(() => {
    issuer.reset();
    issuer.behaviour.statusList = true;
    // The double signs with the real clock; a fresh list URI per test (reset) keeps the cache apart.
    holder.clock.now = new Date();
  });

  async function receive(who: Account = account) {
    const response = await holder.app.inject({
      method: "POST",
      url: "/v1/oid4vci/receive",
      headers: who.headers,
      payload: {
        credential_offer_uri: issuer.offer().link,
        holder_did: identity.did,
        private_key: identity.privateKey,
        notarize_on_ledger: false,
      },
    });
    if (response.statusCode !== 201) throw new Error(response.body);
    // Listings are oldest first: one second apart, the order is the order received.
    holder.clock.advance(1);
    const { credential_id: id, raw_credential: raw } = response.json() as {
      credential_id: string;
      raw_credential: string;
    };
    return { id, raw };
  }
  const get = (url: string, who: Account = account) => holder.app.inject({ method: "GET", url, headers: who.headers });
  /** credential_status of each listed credential, by id. */
  const listed = async (who: Account = account) => {
    const response = await get("/v1/vc", who);
    expect(response.statusCode).toBe(200);
    const { credentials } = response.json() as { credentials: Array<{ id: string; credential_status: string }> };
    return Object.fromEntries(credentials.map((c) => [c.id, c.credential_status]));
  };
  const detail = async (id: string, who: Account) => {
    const response = await get(`/v1/vc/${id}`, who);
    expect(response.statusCode).toBe(200);
    return response.json() as { status: string; credential_status: string; credential_status_reason?: string };
  };

  describe("GET /v1/vc and /v1/vc/:id", () => {
    it.each<SigningMode>(["did:key", "did:ledger", "x5c", "jwt-vc-issuer"])(
      "%s issuer: valid, then revoked and suspended once the list's ttl has passed (cached until then)",
      async (signing) => {
        issuer.behaviour.signing = signing;
        const who = await holder.account();
        const credential = await receive(who);
        const idx = statusIdxOf(credential.raw);
        expect(await listed(who)).toEqual({ [credential.id]: "valid" });
        expect(issuer.statusList.fetches).toBe(1);

        issuer.statusList.set(idx, "invalid");
        // Within the ttl the cached token answers: no fetch, the old status.
        holder.clock.advance(issuer.statusList.ttl - 5);
        expect(await listed(who)).toEqual({ [credential.id]: "valid" });
        expect(issuer.statusList.fetches).toBe(1);
        holder.clock.advance(6);
        expect(await listed(who)).toEqual({ [credential.id]: "revoked" });
        expect(issuer.statusList.fetches).toBe(2);

        issuer.statusList.set(idx, "suspended");
        holder.clock.advance(issuer.statusList.ttl + 1);
        const shown = await detail(credential.id, who);
        // `status` stays the wallet's own ("active"): credential_status is the issuer's.
        expect(shown).toMatchObject({ status: "active", credential_status: "suspended" });
        expect(shown).not.toHaveProperty("credential_status_reason");
      },
    );

    it("no_status for a credential that names no status list (nothing is fetched)", async () => {
      issuer.behaviour.statusList = false;
      const who = await holder.account();
      const credential = await receive(who);
      expect(await listed(who)).toEqual({ [credential.id]: "no_status" });
      expect(await detail(credential.id, who)).toMatchObject({ credential_status: "no_status" });
      expect(issuer.statusList.fetches).toBe(0);
    });

    it("one fetch serves many credentials of one list; each shows its own entry", async () => {
      const who = await holder.account();
      const [a, b, c] = [await receive(who), await receive(who), await receive(who)];
      issuer.statusList.set(statusIdxOf(b!.raw), "invalid");
      issuer.statusList.set(statusIdxOf(c!.raw), "suspended");
      holder.clock.advance(issuer.statusList.ttl + 1);
      const before = issuer.statusList.fetches;
      expect(await listed(who)).toEqual({ [a!.id]: "valid", [b!.id]: "revoked", [c!.id]: "suspended" });
      expect(issuer.statusList.fetches - before).toBe(1);
    });

    it("status_unknown, and the listing still answers 200, when the list is unavailable or signed by a key not bound to the issuer; failures are not cached", async () => {
      const who = await holder.account();
      const credential = await receive(who);
      issuer.statusList.unavailable = true;
      holder.clock.advance(issuer.statusList.ttl + 1);
      expect(await listed(who)).toEqual({ [credential.id]: "status_unknown" });
      expect(await detail(credential.id, who)).toMatchObject({
        credential_status: "status_unknown",
        credential_status_reason: "the status list could not be fetched (HTTP 503)",
      });
      const failedFetches = issuer.statusList.fetches;
      expect(failedFetches).toBeGreaterThanOrEqual(2);

      issuer.statusList.unavailable = false;
      expect(await listed(who)).toEqual({ [credential.id]: "valid" });
      expect(issuer.statusList.fetches).toBe(failedFetches + 1);

      issuer.statusList.foreignKey = true;
      holder.clock.advance(issuer.statusList.ttl + 1);
      const shown = await detail(credential.id, who);
      expect(shown.credential_status).toBe("status_unknown");
      expect(shown.credential_status_reason).toMatch(
        /^the Status List Token's key is not bound to the credential's issuer/,
      );
    });

    it("the list is fetched through the outbound request guard: an internal address is never reached (status_unknown)", async () => {
      const credential = await receive();
      const guarded = await startTestHolder({ guard: "configured" });
      try {
        const before = issuer.statusList.fetches;
        const status = await credentialStatusOf(guarded.deps, credential, silentLog);
        expect(status.status).toBe("status_unknown");
        expect(issuer.statusList.fetches).toBe(before);
      } finally {
        await guarded.close();
      }
    });
  });

  describe("presentation: revoked and suspended credentials are left out unless asked for", () => {
    const requestDetails = (link: string, extra: Record<string, unknown> = {}, who: Account = account) =>
      holder.app.inject({
        method: "POST",
        url: "/v1/oid4vp/request-details",
        headers: who.headers,
        payload: { authorization_request_uri: link, ...extra },
      });
    const present = (link: string, credentialId: string, extra: Record<string, unknown> = {}, who = account) =>
      holder.app.inject({
        method: "POST",
        url: "/v1/oid4vp/presentation",
        headers: who.headers,
        payload: {
          authorization_request_uri: link,
          selected_credentials: [{ credential_id: credentialId, query_id: "diploma" }],
          holder_did: identity.did,
          private_key: identity.privateKey,
          ...extra,
        },
      });

    it("request-details lists a revoked or suspended credential as excluded with its reason; include_revoked / include_suspended offer it", async () => {
      const who = await holder.account();
      const [valid, revoked, suspended] = [await receive(who), await receive(who), await receive(who)];
      issuer.statusList.set(statusIdxOf(revoked!.raw), "invalid");
      issuer.statusList.set(statusIdxOf(suspended!.raw), "suspended");
      holder.clock.advance(issuer.statusList.ttl + 1);
      const request = verifier.createRequest({ dcqlQuery: diplomaQuery });

      const plain = await requestDetails(request.link, {}, who);
      expect(plain.statusCode).toBe(200);
      expect(plain.json().matching_credentials).toEqual([
        {
          credential_id: valid!.id,
          query_id: "diploma",
          vct: DIPLOMA_VCT,
          claims: { given_name: "Ada" },
          credential_status: "valid",
        },
      ]);
      expect(plain.json().excluded_credentials).toEqual([
        { credential_id: revoked!.id, query_id: "diploma", vct: DIPLOMA_VCT, reason: "revoked" },
        { credential_id: suspended!.id, query_id: "diploma", vct: DIPLOMA_VCT, reason: "suspended" },
      ]);

      const withRevoked = (await requestDetails(request.link, { include_revoked: true }, who)).json();
      expect(withRevoked.matching_credentials.map((m: { credential_id: string }) => m.credential_id)).toEqual([
        valid!.id,
        revoked!.id,
      ]);
      expect(withRevoked.matching_credentials[1].credential_status).toBe("revoked");
      expect(withRevoked.excluded_credentials).toEqual([
        { credential_id: suspended!.id, query_id: "diploma", vct: DIPLOMA_VCT, reason: "suspended" },
      ]);

      const withBoth = (
        await requestDetails(request.link, { include_revoked: true, include_suspended: true }, who)
      ).json();
      expect(withBoth.matching_credentials).toHaveLength(3);
      expect(withBoth.excluded_credentials).toEqual([]);
    });

    it("presentation refuses a revoked credential (400 no_matching_credentials, nothing sent) unless include_revoked is true", async () => {
      const who = await holder.account();
      const credential = await receive(who);
      issuer.statusList.set(statusIdxOf(credential.raw), "invalid");
      holder.clock.advance(issuer.statusList.ttl + 1);
      const request = verifier.createRequest({ dcqlQuery: diplomaQuery });
      const refused = await present(request.link, credential.id, {}, who);
      expect([refused.statusCode, refused.json()]).toEqual([
        400,
        {
          error: "no_matching_credentials",
          message: `credential ${credential.id} is revoked by its issuer (include_revoked: true presents it anyway)`,
        },
      ]);
      expect(verifier.submissions.filter((s) => s.requestId === request.id)).toEqual([]);
      // include_suspended does not cover a revoked credential.
      expect((await present(request.link, credential.id, { include_suspended: true }, who)).statusCode).toBe(400);

      const presented = await present(request.link, credential.id, { include_revoked: true }, who);
      expect([presented.statusCode, presented.json()]).toEqual([200, { success: true }]);
      expect(verifier.submissions.filter((s) => s.requestId === request.id)).toHaveLength(1);
    });

    it("a suspended credential needs include_suspended; a status_unknown one is presented (the verifier decides)", async () => {
      const who = await holder.account();
      const credential = await receive(who);
      issuer.statusList.set(statusIdxOf(credential.raw), "suspended");
      holder.clock.advance(issuer.statusList.ttl + 1);
      const first = verifier.createRequest({ dcqlQuery: diplomaQuery });
      const refused = await present(first.link, credential.id, {}, who);
      expect([refused.statusCode, refused.json().message]).toEqual([
        400,
        `credential ${credential.id} is suspended by its issuer (include_suspended: true presents it anyway)`,
      ]);
      expect((await present(first.link, credential.id, { include_suspended: true }, who)).statusCode).toBe(200);

      issuer.statusList.unavailable = true;
      holder.clock.advance(issuer.statusList.ttl + 1);
      const second = verifier.createRequest({ dcqlQuery: diplomaQuery });
      const details = (await requestDetails(second.link, {}, who)).json();
      expect(details.matching_credentials.map((m: { credential_status: string }) => m.credential_status)).toEqual([
        "status_unknown",
      ]);
      expect((await present(second.link, credential.id, {}, who)).statusCode).toBe(200);
    });

    it("400 naming the field when include_revoked or include_suspended is not a boolean", async () => {
      const request = verifier.createRequest({ dcqlQuery: diplomaQuery });
      const response = await requestDetails(request.link, { include_revoked: "yes", include_suspended: 1 });
      expect(response.statusCode).toBe(400);
      expect(response.json().errors).toEqual([
        { field: "include_revoked", message: "must be a boolean" },
        { field: "include_suspended", message: "must be a boolean" },
      ]);
      const presented = await present(request.link, "00000000-0000-4000-8000-000000000000", { include_revoked: 1 });
      expect(presented.statusCode).toBe(400);
      expect(presented.json().errors).toEqual([{ field: "include_revoked", message: "must be a boolean" }]);
    });
  });

  describe("OID4VCI notifications are best effort", () => {
    it("an issuer without a notification endpoint: the credential is stored and nothing is sent", async () => {
      const who = await holder.account();
      const credential = await receive(who);
      expect(Object.keys(await listed(who))).toEqual([credential.id]);
      expect(issuer.notifications).toEqual([]);
      expect(issuer.requests.filter((r) => r.includes("/notification"))).toEqual([]);
      // Deleting it sends nothing either.
      const deleted = await holder.app.inject({
        method: "DELETE",
        url: `/v1/vc/${credential.id}`,
        headers: who.headers,
      });
      expect(deleted.statusCode).toBe(204);
      expect(issuer.notifications).toEqual([]);
    });

    it("a notification endpoint that fails: receive still answers 201 and the credential is stored", async () => {
      issuer.behaviour.notification = "failing";
      const who = await holder.account();
      const credential = await receive(who);
      expect(Object.keys(await listed(who))).toEqual([credential.id]);
      expect(issuer.notifications).toEqual([{ notification_id: expect.any(String), event: "credential_accepted" }]);
    });

    it("a working notification endpoint hears credential_accepted, then credential_deleted", async () => {
      issuer.behaviour.notification = "ok";
      const who = await holder.account();
      const credential = await receive(who);
      const deleted = await holder.app.inject({
        method: "DELETE",
        url: `/v1/vc/${credential.id}`,
        headers: who.headers,
      });
      expect(deleted.statusCode).toBe(204);
      const [accepted, gone] = issuer.notifications;
      expect(accepted).toEqual({ notification_id: expect.any(String), event: "credential_accepted" });
      expect(gone).toEqual({ notification_id: accepted!.notification_id, event: "credential_deleted" });
    });
  });
});
