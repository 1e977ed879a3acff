import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ISSUER_URL, startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import {
  didIssuer,
  diplomaRequest,
  dpopProof,
  ed25519Key,
  type HolderKey,
  p256Key,
  postCredential,
  postCredentialWithDpop,
  redeemedOffer,
  thumbprintOf,
} from "./support/wallet.js";

interface Issued {
  offerId: string;
  token: string;
  notificationId: string;
  credentialIds: string[];
}

describe("POST /notification (OID4VCI notification endpoint)", () => {
  let issuer: TestIssuer;
  const issuerKey = ed25519Key();

  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  /** A credential response of `count` credentials for a fresh offer, with its token and notification_id. */
  async function issue(count = 1, holder?: HolderKey): Promise<Issued> {
    const { offerId } = await redeemedOffer(issuer, didIssuer(issuerKey));
    const body = await diplomaRequest(
      issuer,
      Array.from({ length: count }, () => p256Key()),
    );
    const token = holder
      ? await issuer.accessToken({ offerId, jkt: await thumbprintOf(holder) })
      : await issuer.accessToken({ offerId });
    const response = holder
      ? await postCredentialWithDpop(issuer, { token, key: holder, body })
      : await postCredential(issuer, { token, body });
    expect(response.statusCode).toBe(200);
    const notificationId = response.json().notification_id as string;
    const { records } = await issuer.deps.credentials.list({ tenant: "acme", offerId, offset: 0, limit: 10 });
    return { offerId, token, notificationId, credentialIds: records.map((r) => r.id).sort() };
  }

  const notify = (payload: unknown, headers: Record<string, string> = {}) =>
    issuer.app.inject({ method: "POST", url: "/notification", headers, payload: payload as never });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const eventsOf = (offerId: string) =>
    [...issuer.doubles.notary.credentialEvents.values()].filter((event) => event.offerId === offerId);

  it("is announced in the issuer metadata", async () => {
    const response = await issuer.app.inject({ method: "GET", url: "/.well-known/openid-credential-issuer/acme" });
    expect(response.json().notification_endpoint).toBe(`${ISSUER_URL}/notification`);
  });

  it("gives every credential response one unguessable notification_id, shared by its batch", async () => {
    const first = await issue(2);
    const second = await issue(1);
    expect(first.notificationId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.notificationId).not.toBe(second.notificationId);
    expect(first.credentialIds).toHaveLength(2);
    const { records } = await issuer.deps.credentials.list({
      tenant: "acme",
      offerId: first.offerId,
      offset: 0,
      limit: 10,
    });
    expect(records.map((r) => r.notificationId)).toEqual([first.notificationId, first.notificationId]);
  });

  for (const [event, type] of [
    ["credential_accepted", "credential.accepted"],
    ["credential_failure", "credential.failure"],
    ["credential_deleted", "credential.deleted"],
  ] as const) {
    it(`stores ${event} on the credentials and publishes ${type} once per credential`, async () => {
      const issued = await issue(2);
      issuer.clock.advance(3);
      const payload = { notification_id: issued.notificationId, event, event_description: "Stored in wallet 1.2" };
      const response = await notify(payload, bearer(issued.token));
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe("");
      const { records } = await issuer.deps.credentials.list({
        tenant: "acme",
        offerId: issued.offerId,
        offset: 0,
        limit: 10,
      });
      for (const record of records) {
        expect(record.notification).toEqual({ event, description: "Stored in wallet 1.2", at: issuer.clock.now });
      }
      // A repeat is accepted and queues no second webhook.
      expect((await notify(payload, bearer(issued.token))).statusCode).toBe(204);
      const events = eventsOf(issued.offerId);
      expect(events.map((e) => e.credentialId).sort()).toEqual(issued.credentialIds);
      for (const published of events) {
        expect(published).toMatchObject({
          tenant: "acme",
          type,
          offerId: issued.offerId,
          data: { event, event_description: "Stored in wallet 1.2" },
        });
      }
    });
  }

  it("accepts a DPoP-bound token with a proof made for the notification endpoint", async () => {
    const holder = p256Key();
    const issued = await issue(1, holder);
    const payload = { notification_id: issued.notificationId, event: "credential_accepted" };
    const wrongHtu = await notify(payload, {
      authorization: `DPoP ${issued.token}`,
      dpop: await dpopProof({ key: holder, accessToken: issued.token, now: issuer.clock.now }),
    });
    expect(wrongHtu.statusCode).toBe(401);
    const proof = (nonce?: string) =>
      dpopProof({
        key: holder,
        accessToken: issued.token,
        htu: `${ISSUER_URL}/notification`,
        now: issuer.clock.now,
        ...(nonce === undefined ? {} : { nonce }),
      });
    let response = await notify(payload, { authorization: `DPoP ${issued.token}`, dpop: await proof() });
    if (response.statusCode !== 204) {
      expect(response.json().error).toBe("use_dpop_nonce");
      const nonce = response.headers["dpop-nonce"] as string;
      response = await notify(payload, { authorization: `DPoP ${issued.token}`, dpop: await proof(nonce) });
    }
    expect(response.statusCode).toBe(204);
    expect(eventsOf(issued.offerId).map((e) => e.type)).toEqual(["credential.accepted"]);
    // The bound token sent as Bearer is refused.
    expect((await notify(payload, bearer(issued.token))).statusCode).toBe(401);
  });

  it("rejects a notification_id of another offer's token and an unknown one (invalid_notification_id)", async () => {
    const mine = await issue();
    const theirs = await issue();
    const foreign = await notify(
      { notification_id: theirs.notificationId, event: "credential_deleted" },
      bearer(mine.token),
    );
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().error).toBe("invalid_notification_id");
    const unknown = await notify({ notification_id: "no-such-id", event: "credential_accepted" }, bearer(mine.token));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toBe("invalid_notification_id");
    expect(eventsOf(theirs.offerId)).toEqual([]);
    const { records } = await issuer.deps.credentials.list({
      tenant: "acme",
      offerId: theirs.offerId,
      offset: 0,
      limit: 10,
    });
    expect(records[0]!.notification).toBeUndefined();
  });

  it("rejects a malformed body with invalid_notification_request", async () => {
    const issued = await issue();
    const bad = [
      {},
      { notification_id: issued.notificationId },
      { notification_id: issued.notificationId, event: "credential_lost" },
      { notification_id: 42, event: "credential_accepted" },
      { notification_id: issued.notificationId, event: "credential_failure", event_description: 'say "hi"' },
      { notification_id: issued.notificationId, event: "credential_failure", event_description: "caf\u00e9" },
      { notification_id: issued.notificationId, event: "credential_failure", event_description: "x".repeat(1001) },
      [],
    ];
    for (const payload of bad) {
      const response = await notify(payload, bearer(issued.token));
      expect(response.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(response.json().error).toBe("invalid_notification_request");
    }
    expect(eventsOf(issued.offerId)).toEqual([]);
    // Every failing member in one answer.
    const both = await notify({ notification_id: "", event: "credential_lost" }, bearer(issued.token));
    expect(both.json()).toEqual({
      error: "invalid_notification_request",
      error_description:
        "notification_id must not be empty; event must be one of credential_accepted, credential_failure, credential_deleted",
      errors: [
        { field: "notification_id", message: "must not be empty" },
        { field: "event", message: "must be one of credential_accepted, credential_failure, credential_deleted" },
      ],
    });
  });

  it("refuses a missing or invalid access token with 401 invalid_token and a challenge", async () => {
    const issued = await issue();
    const payload = { notification_id: issued.notificationId, event: "credential_accepted" };
    for (const headers of [{}, bearer("not-a-jwt"), { authorization: `Basic ${issued.token}` }]) {
      const response = await notify(payload, headers);
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe("invalid_token");
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer /);
    }
    // A valid token of another tenant never reaches this tenant's credentials.
    const otherTenant = await issuer.accessToken({ offerId: issued.offerId, tenant: "globex" });
    const foreign = await notify(payload, bearer(otherTenant));
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().error).toBe("invalid_notification_id");
    expect(eventsOf(issued.offerId)).toEqual([]);
  });
});
