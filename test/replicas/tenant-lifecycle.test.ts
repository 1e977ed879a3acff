import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApprovedCode, approvedAuthorizationCode } from "../hostile/support/authorization-code.js";
import {
  applyTenant,
  type CreatedOffer,
  createOffer,
  fetchNonce,
  fetchOffer,
  getToken,
  type Issued,
  issueCredential,
  keyProof,
  p256Key,
  postCredential,
  presentForVerification,
  redeemCode,
  type Tenant,
  type TokenResult,
} from "../hostile/support/flows.js";
import { http, postJson } from "../hostile/support/http.js";
import type { ServiceName } from "../hostile/support/platform.js";
import {
  operatorOn as operatorOfReplica,
  type ReplicaPlatform,
  startReplicaPlatform,
} from "./support/replica-platform.js";

/** Ports 20081..20088 / 21081..21088, 20091..20098 / 21091..21098; the balancers 20101..20108. */
const FIRST_REPLICA_PORT_OFFSET = 12_000;
const SECOND_REPLICA_PORT_OFFSET = 12_010;
const BALANCER_PORT_OFFSET = 12_020;

/** The services on the issuing and verifying paths (the holder and the scheduler are on none). */
const SERVICES: ServiceName[] = [
  "auth-server",
  "credential-issuer",
  "verifier",
  "trust-registry",
  "schema-registry",
  "ledger",
];

describe("a tenant deactivated through one replica is deactivated at once on the other", () => {
  let platform: ReplicaPlatform;
  let issuer: Tenant;
  let verifier: Tenant;
  /** Issued while active: on the X.509 path, and on the DID path (did:key). */
  let issued: Issued;
  let issuedDid: Issued;
  let unredeemed: { offer: CreatedOffer; code: string };
  let unspent: { token: TokenResult; configurationId: string; audience: string };
  let approved: ApprovedCode;

  const operatorOn = (replica: 0 | 1) => operatorOfReplica(platform, replica);

  /** Runs `step` with every balancer pinned to `replica`; fails when the other replica got any of its requests. */
  async function on<T>(replica: 0 | 1, step: () => Promise<T>): Promise<T> {
    const other = 1 - replica;
    const before = SERVICES.map((name) => platform.balancers[name].served[other]);
    platform.pin(replica);
    let result: T;
    try {
      result = await step();
    } finally {
      platform.pin();
    }
    expect(SERVICES.map((name) => platform.balancers[name].served[other])).toEqual(before);
    return result;
  }

  /** A credential presented to the other tenant's verifier: the session's status and its checks. */
  const presentToVerifier = (credential: Issued = issued) =>
    presentForVerification(platform.url, verifier.apiKey, credential);

  /** A credential request with the access token minted before the deactivation (a fresh key proof). */
  async function spendUnspentToken() {
    const proof = await keyProof({ key: p256Key(), nonce: await fetchNonce(platform.url), audience: unspent.audience });
    return postCredential(platform.url, unspent.token, {
      credential_configuration_id: unspent.configurationId,
      proofs: { jwt: [proof] },
    });
  }

  /** The statuses of the tenant's issuer metadata, JWT VC issuer metadata and landing page. */
  const metadataStatus = async (tenant: string) =>
    Promise.all(
      [`.well-known/openid-credential-issuer/${tenant}`, `.well-known/jwt-vc-issuer/${tenant}`, tenant].map(
        async (path) => (await http(`${platform.url.issuer}/${path}`)).status,
      ),
    );

  beforeAll(async () => {
    platform = await startReplicaPlatform({
      label: "lifecycle",
      portOffsets: {
        first: FIRST_REPLICA_PORT_OFFSET,
        second: SECOND_REPLICA_PORT_OFFSET,
        balancer: BALANCER_PORT_OFFSET,
      },
      services: SERVICES,
    });
    const urls = platform.url;
    [issuer, verifier] = await on(0, () => Promise.all([applyTenant(urls), applyTenant(urls)]));
    await on(1, async () => {
      issued = await issueCredential(urls, issuer, { x509: true });
      issuedDid = await issueCredential(urls, issuer);
      const offer = await createOffer(urls, issuer.apiKey);
      unredeemed = { offer, code: (await fetchOffer(offer)).code };
      const third = await fetchOffer(await createOffer(urls, issuer.apiKey));
      unspent = {
        token: await getToken(urls, third.code, p256Key()),
        configurationId: third.document.credential_configuration_ids[0]!,
        audience: third.document.credential_issuer,
      };
      approved = await approvedAuthorizationCode(urls, issuer);
      // Replica 1 has seen the tenant active everywhere: what fails below is the deactivation's doing.
      expect(await presentToVerifier()).toMatchObject({ status: "completed" });
      expect(await presentToVerifier(issuedDid)).toMatchObject({ status: "completed" });
      expect(await metadataStatus(issuer.tenant)).toEqual([200, 200, 200]);
    });

    expect(await operatorOn(0).deleteTenant({ tenant: issuer.tenant })).toMatchObject({
      found: true,
      deactivated: true,
    });
  }, 150_000);

  afterAll(async () => {
    await platform?.close();
  });

  it("replica 1 refuses the unredeemed offer's code with invalid_grant and its document with 410", async () => {
    await on(1, async () => {
      const result = await redeemCode(platform.url, unredeemed.code, { dpopKey: p256Key() });
      expect(result.status).toBe(400);
      expect((result.json as { error: string }).error).toBe("invalid_grant");
      expect((await http(unredeemed.offer.credential_offer_uri)).status).toBe(410);
    });
  });

  it("replica 1 refuses an authorization code the user approved before the deactivation with invalid_grant", async () => {
    await on(1, async () => {
      const result = await approved.exchange();
      expect(result.status).toBe(400);
      expect((result.json as { error: string }).error).toBe("invalid_grant");
    });
  });

  it("replica 1 refuses the unspent access token at /credential with credential_request_denied", async () => {
    await on(1, async () => {
      const result = await spendUnspentToken();
      expect(result.status).toBe(400);
      expect((result.json as { error: string }).error).toBe("credential_request_denied");
    });
  });

  it("replica 1 no longer serves the tenant's metadata documents and landing page (404)", async () => {
    await on(1, async () => expect(await metadataStatus(issuer.tenant)).toEqual([404, 404, 404]));
  });

  it("replica 1's verifier fails its credentials on issuer_trust (issuer_deactivated), never completed", async () => {
    for (const credential of [issued, issuedDid]) {
      const { status, checks } = await on(1, () => presentToVerifier(credential));
      expect(status).toBe("failed");
      expect(checks).toContain("issuer_signature success valid");
      expect(checks).toContain("issuer_trust failed issuer_deactivated");
    }
  });

  it("reactivation through replica 1 (ApplyTenant) restores issuance and trust on replica 0, not the expired offers, audited", async () => {
    const reactivated = await operatorOn(1).applyTenant({
      tenant: issuer.tenant,
      name: `Org ${issuer.tenant}`,
      email: `${issuer.tenant}@example.test`,
      isIssuer: true,
      isVerifier: true,
    });
    expect(reactivated.apiKey).not.toBe("");
    await on(0, async () => {
      // The old key stays revoked; the new one issues again.
      const oldKey = await postJson(`${platform.url.issuer}/v1/offers`, {}, { "x-api-key": issuer.apiKey });
      expect(oldKey.status).toBe(401);
      const again = await issueCredential(platform.url, { ...issuer, apiKey: reactivated.apiKey }, { x509: true });
      expect(again.credential.split("~")[0]!.split(".")).toHaveLength(3);
      expect(await metadataStatus(issuer.tenant)).toEqual([200, 200, 200]);
      expect(await presentToVerifier()).toMatchObject({ status: "completed" });
      // What the deactivation expired stays expired: the offer open then, its code and the token minted before.
      expect((await http(unredeemed.offer.credential_offer_uri)).status).toBe(410);
      const redeemed = await redeemCode(platform.url, unredeemed.code, { dpopKey: p256Key() });
      expect([redeemed.status, (redeemed.json as { error: string }).error]).toEqual([400, "invalid_grant"]);
      const denied = await spendUnspentToken();
      expect([denied.status, (denied.json as { error: string }).error]).toEqual([400, "credential_request_denied"]);
    });
    const { rows } = await platform.pool.query<{ event: string; actor: string }>(
      `SELECT event, actor FROM "${platform.schema["trust-registry"]}".tenant_lifecycle_events WHERE tenant = $1 ORDER BY id`,
      [issuer.tenant],
    );
    expect(rows).toEqual([
      { event: "deactivated", actor: "operator" },
      { event: "reactivated", actor: "operator" },
    ]);
  });
});
