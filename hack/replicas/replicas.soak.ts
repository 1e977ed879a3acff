import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../test/k8s/support/wait-for.js";
import {
  accepted,
  issueOnChain,
  type RaceResult,
  raceAuthorizationCode,
  raceCNonce,
  raceDpopJti,
  raceLogin,
  racePreAuthorizedCode,
} from "../../test/replicas/support/races.js";
import { type ReplicaScenario, startReplicaScenario } from "../../test/replicas/support/replica-scenario.js";
import { deliveryProblems } from "../../test/replicas/support/webhook-receiver.js";
import { CONCURRENCY, DURATION_SECONDS, summary } from "./settings.js";

/**
 * test/replicas/guarantees.test.ts for longer: the same races, round after round for
 * REPLICAS_DURATION_SECONDS, with REPLICAS_CONCURRENCY racers each, while credentials notarized on
 * the ledger keep both schedulers delivering webhooks to two targets. Every violation is collected
 * and printed with a PASS/FAIL line; the run fails when there is any.
 */
const TARGETS = ["/a", "/b"];
/**
 * Each login race needs a fresh account, registered by POST /v1/apply, which admits 100 requests
 * per minute per client address (the trust registry README); rounds run faster than that, so a
 * round starts a login race only while fewer than this many ran in the last minute.
 */
const LOGIN_RACES_PER_MINUTE = 80;

describe("replicas under load", () => {
  let scenario: ReplicaScenario;

  beforeAll(async () => {
    scenario = await startReplicaScenario("replicas_soak");
    await scenario.setWebhookTargets(TARGETS);
  });

  afterAll(async () => {
    await scenario?.close();
  });

  it(`holds every guarantee for ${DURATION_SECONDS} s`, async () => {
    const { context, receiver } = scenario;
    const violations: string[] = [];
    const tally = new Map<string, number>();
    /** Exactly one use accepted (`atMostOne`: none is fine too, for codes whose reuse revokes the winner's token). */
    const once = (name: string, race: RaceResult, atMostOne = false) => {
      tally.set(name, (tally.get(name) ?? 0) + 1);
      const count = accepted(race).length;
      if (count > 1 || (count === 0 && !atMostOne)) {
        violations.push(`${name}: ${count} accepted of ${race.results.length}`);
      }
      if (!race.bothReplicas) violations.push(`${name}: the balancer did not reach both replicas`);
      const errors = race.results.filter((result) => result.status >= 500);
      if (errors.length > 0) violations.push(`${name}: ${errors.length} answers ${errors[0]?.status}`);
    };
    let notarized = 0;
    let rounds = 0;
    const loginRaces: number[] = [];
    const deadline = Date.now() + DURATION_SECONDS * 1000;
    while (Date.now() < deadline) {
      rounds++;
      const minuteAgo = Date.now() - 60_000;
      while (loginRaces.length > 0 && loginRaces[0]! <= minuteAgo) loginRaces.shift();
      const withLogin = loginRaces.length < LOGIN_RACES_PER_MINUTE;
      if (withLogin) loginRaces.push(Date.now());
      const [code, nonce, jti, authorization, issued, login] = await Promise.all([
        racePreAuthorizedCode(context, CONCURRENCY),
        raceCNonce(context, CONCURRENCY),
        raceDpopJti(context, CONCURRENCY),
        raceAuthorizationCode(context, CONCURRENCY),
        issueOnChain(context, 2),
        withLogin ? raceLogin(context.platform, CONCURRENCY) : undefined,
      ]);
      once("pre-authorized code", code);
      once("c_nonce", nonce);
      once("DPoP jti", jti);
      once("authorization code", authorization, true);
      if (login) {
        tally.set("login limit", (tally.get("login limit") ?? 0) + 1);
        const allowed = login.results.filter((result) => result.status !== 429).length;
        if (allowed !== Math.min(5, CONCURRENCY)) violations.push(`login limit: ${allowed} attempts let through`);
      }
      notarized += accepted(issued).length;
    }
    if (rounds === 0) violations.push("no round ran");
    const expected = notarized * TARGETS.length;
    await waitFor(
      async () => (await scenario.delivered()) === expected && receiver.received.length >= expected,
      `${expected} webhook deliveries`,
      120_000,
    ).catch((error: unknown) => violations.push(String(error)));
    violations.push(...deliveryProblems(receiver.received, TARGETS, notarized));
    console.log(
      summary(
        `replicas: ${DURATION_SECONDS} s, ${CONCURRENCY} racers per race`,
        [
          `${rounds} rounds`,
          ...[...tally].map(([name, races]) => `${name}: ${races} races`),
          `webhooks: ${notarized} events, ${receiver.received.length} deliveries to ${TARGETS.length} targets`,
          `balancer (requests per replica): ${Object.entries(context.platform.balancers)
            .filter(([, balancer]) => balancer.served.some((served) => served > 0))
            .map(([service, balancer]) => `${service} ${balancer.served.join("/")}`)
            .join(", ")}`,
        ],
        violations,
      ),
    );
    expect(violations).toEqual([]);
  });
});
