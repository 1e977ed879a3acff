import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRefused, postJson } from "../hostile/support/http.js";
import { waitFor } from "../k8s/support/wait-for.js";
import {
  accepted,
  issueOnChain,
  type RaceContext,
  raceAuthorizationCode,
  raceCNonce,
  raceDpopJti,
  raceLogin,
  racePreAuthorizedCode,
  refused,
} from "./support/races.js";
import { type ReplicaScenario, startReplicaScenario } from "./support/replica-scenario.js";
import { deliveryProblems } from "./support/webhook-receiver.js";

/**
 * Every guarantee that must hold when each service runs as several replicas on one PostgreSQL:
 * single-use values are accepted once across replicas even when the uses race, rate limits count
 * across replicas, and each webhook event reaches each target once with a stable event id. Every
 * race sends its requests at once through the balancer, which alternates between the replicas;
 * each test checks both replicas received some of them. (hack/replicas runs the same for longer.)
 */
describe("two replicas of every service on one database", () => {
  let scenario: ReplicaScenario;
  let context: RaceContext;

  beforeAll(async () => {
    scenario = await startReplicaScenario("replicas");
    context = scenario.context;
  }, 240_000);

  afterAll(async () => {
    await scenario?.close();
  });

  it("a pre-authorized code raced on both replicas yields exactly one token", async () => {
    const race = await racePreAuthorizedCode(context);
    expect(race.bothReplicas).toBe(true);
    expect(accepted(race)).toHaveLength(1);
    for (const result of refused(race)) expectRefused(result, "oauth", { statuses: [400], code: "invalid_grant" });
  });

  it("a c_nonce raced on both replicas issues exactly one credential", async () => {
    const before = await context.platform.count("credential-issuer", "credentials");
    const race = await raceCNonce(context);
    expect(race.bothReplicas).toBe(true);
    expect(accepted(race)).toHaveLength(1);
    for (const result of refused(race)) expectRefused(result, "oauth", { statuses: [400], code: "invalid_proof" });
    expect(await context.platform.count("credential-issuer", "credentials")).toBe(before + 1);
  });

  it("a DPoP proof (one jti) raced on both replicas is accepted once", async () => {
    const race = await raceDpopJti(context);
    expect(race.bothReplicas).toBe(true);
    expect(accepted(race)).toHaveLength(1);
    for (const result of refused(race)) {
      expectRefused(result, "oauth", { statuses: [400], code: "invalid_dpop_proof" });
    }
  });

  it("an authorization code raced on both replicas is never exchanged twice", async () => {
    const race = await raceAuthorizationCode(context);
    expect(race.bothReplicas).toBe(true);
    // RFC 6749 §4.1.2: a code used twice is refused and what it issued is revoked, so a race may
    // leave no token at all (when the reuse is seen before the winner records its token); never two.
    expect(accepted(race).length).toBeLessThanOrEqual(1);
    for (const result of refused(race)) expectRefused(result, "oauth", { statuses: [400], code: "invalid_grant" });
  });

  it("the trust registry's login limit (5 per minute per account) counts attempts on both replicas", async () => {
    const race = await raceLogin(context.platform, 9);
    expect(race.bothReplicas).toBe(true);
    const limited = race.results.filter((result) => result.status === 429);
    expect(limited).toHaveLength(4);
    expect(race.results.filter((result) => result.status === 401)).toHaveLength(5);
    expect(limited[0]?.headers.get("retry-after")).toMatch(/^\d+$/);
    // The right password is refused too now, on either replica.
    for (const replica of context.platform.replicas) {
      const right = await postJson(`${replica.trust}/v1/auth/login`, {
        uuid: race.account.uuid,
        password: race.account.password,
      });
      expect(right.status).toBe(429);
    }
  });

  it("each webhook event reaches each target once, with one stable event id, whichever replica sends it", async () => {
    const { platform, tenant } = context;
    const targets = ["/a", "/b"];
    await scenario.setWebhookTargets(targets);
    const credentials = 4;
    const issued = await issueOnChain(context, credentials);
    expect(issued.bothReplicas).toBe(true);
    expect(accepted(issued)).toHaveLength(credentials);
    const expected = credentials * targets.length;
    const { receiver } = scenario;
    // Every delivery recorded as delivered (so no attempt is still on its way), and all of them received.
    await waitFor(
      async () => (await scenario.delivered()) === expected && receiver.received.length >= expected,
      "every notarized event delivered to both targets",
      60_000,
    );
    expect(await platform.count("scheduler", "webhook_deliveries", "tenant = $1", [tenant.tenant])).toBe(expected);
    expect(receiver.received.map((delivery) => delivery.eventType)).toEqual(
      Array(expected).fill("credential.notarized"),
    );
    expect(deliveryProblems(receiver.received, targets, credentials)).toEqual([]);
  });
});
