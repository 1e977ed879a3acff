import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tenantV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime";
import { testCredentialSigner } from "@attesto/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyTenant,
  BADGE_CONFIG,
  createOffer,
  didKeyIssuer,
  dpopProof,
  fetchNonce,
  fetchOffer,
  getToken,
  keyProof,
  PRE_AUTHORIZED_GRANT,
  p256Key,
  postCredential,
  redeemCode,
  type Tenant,
} from "../hostile/support/flows.js";
import { expectRefused, postForm, postJson } from "../hostile/support/http.js";
import type { ServiceName } from "../hostile/support/platform.js";
import { waitFor } from "../k8s/support/wait-for.js";
import { approvedAuthorizationCode } from "./support/authorization-code.js";
import { type ReplicaPlatform, startReplicaPlatform } from "./support/replica-platform.js";

/**
 * Every guarantee that must hold when each service runs as several replicas on one PostgreSQL:
 * single-use values are accepted once across replicas even when the uses race, rate limits count
 * across replicas, and each webhook event reaches each target once with a stable event id. Every
 * race sends its requests at once through the balancer, which alternates between the replicas;
 * each test checks both replicas received some of them.
 */

interface Delivery {
  target: string;
  eventId: string;
  eventType: string;
  body: { id?: string; type?: string };
}

describe("two replicas of every service on one database", () => {
  let platform: ReplicaPlatform;
  let receiver: Server;
  const deliveries: Delivery[] = [];
  let tenant: Tenant;
  let issuerId: string;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        deliveries.push({
          target: request.url ?? "",
          eventId: String(request.headers["attesto-event-id"] ?? ""),
          eventType: String(request.headers["attesto-event-type"] ?? ""),
          body: JSON.parse(body) as Delivery["body"],
        });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    platform = await startReplicaPlatform({
      label: "replicas",
      env: {
        // The webhook receiver of this test is a loopback address, allowed explicitly.
        OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${(receiver.address() as AddressInfo).port}`,
        SCHEDULER_NOTARY_BATCH_INTERVAL_MS: "200",
        SCHEDULER_WEBHOOK_CONFIG_CACHE_MS: "0",
      },
    });
    tenant = await applyTenant(platform.url);
    issuerId = `${platform.url.issuer}/${tenant.tenant}`;
  }, 240_000);

  afterAll(async () => {
    await platform?.close();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  /** Runs `race` and checks both replicas of `service` answered part of it. */
  async function onBothReplicas<T>(service: ServiceName, race: () => Promise<T>): Promise<T> {
    const before = [...platform.balancers[service].served];
    const result = await race();
    const after = platform.balancers[service].served;
    expect(after.map((served, index) => served - (before[index] ?? 0) > 0)).toEqual([true, true]);
    return result;
  }

  const freshCode = async () =>
    (await fetchOffer(await createOffer(platform.url, tenant.apiKey, { signing: didKeyIssuer() }))).code;

  it("a pre-authorized code raced on both replicas yields exactly one token", async () => {
    const code = await freshCode();
    const results = await onBothReplicas("auth-server", () =>
      Promise.all(Array.from({ length: 12 }, () => redeemCode(platform.url, code, { dpopKey: p256Key() }))),
    );
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    for (const result of results.filter((r) => r.status !== 200)) {
      expectRefused(result, "oauth", { statuses: [400], code: "invalid_grant" });
    }
  });

  it("a c_nonce raced on both replicas issues exactly one credential", async () => {
    const token = await getToken(platform.url, await freshCode());
    const nonce = await fetchNonce(platform.url);
    const before = await platform.count("credential-issuer", "credentials");
    const results = await onBothReplicas("credential-issuer", () =>
      Promise.all(
        Array.from({ length: 8 }, async () =>
          postCredential(platform.url, token, {
            credential_configuration_id: BADGE_CONFIG,
            proofs: { jwt: [await keyProof({ key: p256Key(), nonce, audience: issuerId })] },
          }),
        ),
      ),
    );
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    for (const result of results.filter((r) => r.status !== 200)) {
      expectRefused(result, "oauth", { statuses: [400], code: "invalid_proof" });
    }
    expect(await platform.count("credential-issuer", "credentials")).toBe(before + 1);
  });

  it("a DPoP proof (one jti) raced on both replicas is accepted once", async () => {
    const key = p256Key();
    const tokenUrl = `${platform.url.auth}/v1/token`;
    // A server nonce first (any replica's is good at every replica), then one proof for all requests.
    const warmUp = await redeemCode(platform.url, await freshCode(), { dpopKey: key });
    expect(warmUp.status).toBe(200);
    const nonce = warmUp.headers.get("dpop-nonce");
    expect(nonce).toBeTruthy();
    const proof = await dpopProof({ key, htu: tokenUrl, nonce: nonce ?? "" });
    const codes = await Promise.all(Array.from({ length: 6 }, () => freshCode()));
    const results = await onBothReplicas("auth-server", () =>
      Promise.all(
        codes.map((code) =>
          postForm(tokenUrl, { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": code }, { dpop: proof }),
        ),
      ),
    );
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    for (const result of results.filter((r) => r.status !== 200)) {
      expectRefused(result, "oauth", { statuses: [400], code: "invalid_dpop_proof" });
    }
  });

  it("an authorization code raced on both replicas is exchanged once", async () => {
    const approved = await approvedAuthorizationCode(platform.url, tenant);
    const results = await onBothReplicas("auth-server", () =>
      Promise.all(Array.from({ length: 6 }, () => approved.exchange())),
    );
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    for (const result of results.filter((r) => r.status !== 200)) {
      expectRefused(result, "oauth", { statuses: [400], code: "invalid_grant" });
    }
  });

  it("the trust registry's login limit (5 per minute per account) counts attempts on both replicas", async () => {
    const target = await applyTenant(platform.url);
    const attempts = await onBothReplicas("trust-registry", () =>
      Promise.all(
        Array.from({ length: 9 }, () =>
          postJson(`${platform.url.trust}/v1/auth/login`, { uuid: target.uuid, password: "Wrong-Passw0rd-1" }),
        ),
      ),
    );
    const limited = attempts.filter((result) => result.status === 429);
    expect(limited).toHaveLength(4);
    expect(attempts.filter((result) => result.status === 401)).toHaveLength(5);
    expect(limited[0]?.headers.get("retry-after")).toMatch(/^\d+$/);
    // The right password is refused too now, on either replica.
    for (const replica of platform.replicas) {
      const right = await postJson(`${replica.trust}/v1/auth/login`, { uuid: target.uuid, password: target.password });
      expect(right.status).toBe(429);
    }
  });

  it("each webhook event reaches each target once, with one stable event id, whichever replica sends it", async () => {
    const registry = createRpcClient(tenantV1.TenantService, {
      baseUrl: platform.trustRegistryInternalUrl,
      audience: "trust-registry",
      signer: testCredentialSigner("operator"),
      timeoutMs: 10_000,
    });
    const port = (receiver.address() as AddressInfo).port;
    const targets = ["/a", "/b"];
    await registry.setWebhooks({
      tenant: tenant.tenant,
      webhooks: targets.map((path) => ({ url: `http://127.0.0.1:${port}${path}`, events: [] })),
    });
    const credentials = 4;
    await onBothReplicas("credential-issuer", async () => {
      for (let i = 0; i < credentials; i++) {
        const token = await getToken(platform.url, await freshCode());
        const issued = await postCredential(platform.url, token, {
          credential_configuration_id: BADGE_CONFIG,
          proofs: {
            jwt: [await keyProof({ key: p256Key(), nonce: await fetchNonce(platform.url), audience: issuerId })],
          },
          is_on_chain: true,
        });
        expect(issued.status, issued.text).toBe(200);
      }
    });
    const expected = credentials * targets.length;
    // Every delivery recorded as delivered (so no attempt is still on its way), and all of them received.
    await waitFor(
      async () =>
        (await platform.count("scheduler", "webhook_deliveries", "tenant = $1 AND state = 'delivered'", [
          tenant.tenant,
        ])) === expected && deliveries.length >= expected,
      "every notarized event delivered to both targets",
      60_000,
    );
    expect(await platform.count("scheduler", "webhook_deliveries", "tenant = $1", [tenant.tenant])).toBe(expected);
    expect(deliveries).toHaveLength(expected);
    for (const delivery of deliveries) {
      expect(delivery.eventType).toBe("credential.notarized");
      expect(delivery.body.id).toBe(delivery.eventId);
    }
    for (const target of targets) {
      const ids = deliveries.filter((delivery) => delivery.target === target).map((delivery) => delivery.eventId);
      expect(new Set(ids).size).toBe(credentials);
      expect(ids).toHaveLength(credentials);
    }
    // Both targets saw the same events.
    const idsOf = (target: string) =>
      deliveries
        .filter((delivery) => delivery.target === target)
        .map((delivery) => delivery.eventId)
        .sort();
    expect(idsOf("/a")).toEqual(idsOf("/b"));
  });
});
