import { tenantV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { testCredentialSigner } from "@attesto/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyTenant } from "../../test/hostile/support/flows.js";
import { waitFor } from "../../test/k8s/support/wait-for.js";
import {
  accepted,
  issueOnChain,
  type RaceContext,
  type RaceResult,
  raceAuthorizationCode,
  raceCNonce,
  raceDpopJti,
  raceLogin,
  racePreAuthorizedCode,
} from "../../test/replicas/support/races.js";
import { startReplicaPlatform } from "../../test/replicas/support/replica-platform.js";
import {
  deliveryProblems,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../test/replicas/support/webhook-receiver.js";

/**
 * test/replicas/guarantees.test.ts for longer: the same races, round after round for
 * REPLICAS_DURATION_SECONDS, with REPLICAS_CONCURRENCY racers each, while credentials notarized on
 * the ledger keep both schedulers delivering webhooks to two targets. Every violation is collected
 * and printed; the run fails when there is any.
 */
const DURATION_SECONDS = Number(process.env.REPLICAS_DURATION_SECONDS ?? 120);
const CONCURRENCY = Number(process.env.REPLICAS_CONCURRENCY ?? 12);
const TARGETS = ["/a", "/b"];

describe("replicas under load", () => {
  let context: RaceContext;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    const platform = await startReplicaPlatform({
      label: "replicas_soak",
      env: {
        OUTBOUND_ALLOW_HOSTS: receiver.host,
        SCHEDULER_NOTARY_BATCH_INTERVAL_MS: "200",
        SCHEDULER_WEBHOOK_CONFIG_CACHE_MS: "0",
      },
    });
    const tenant = await applyTenant(platform.url);
    context = { platform, tenant, issuerId: `${platform.url.issuer}/${tenant.tenant}` };
    await createRpcClient(tenantV1.TenantService, {
      baseUrl: platform.trustRegistryInternalUrl,
      audience: "trust-registry",
      signer: testCredentialSigner("operator"),
      timeoutMs: 10_000,
    }).setWebhooks({
      tenant: tenant.tenant,
      webhooks: TARGETS.map((target) => ({ url: receiver.urlOf(target), events: [] })),
    });
  });

  afterAll(async () => {
    await context?.platform.close();
    await receiver?.close();
  });

  it(`holds every guarantee for ${DURATION_SECONDS} s`, async () => {
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
    const deadline = Date.now() + DURATION_SECONDS * 1000;
    while (Date.now() < deadline) {
      const [code, nonce, jti, authorization, login, issued] = await Promise.all([
        racePreAuthorizedCode(context, CONCURRENCY),
        raceCNonce(context, CONCURRENCY),
        raceDpopJti(context, CONCURRENCY),
        raceAuthorizationCode(context, CONCURRENCY),
        raceLogin(context.platform, CONCURRENCY),
        issueOnChain(context, 2),
      ]);
      once("pre-authorized code", code);
      once("c_nonce", nonce);
      once("DPoP jti", jti);
      once("authorization code", authorization, true);
      tally.set("login limit", (tally.get("login limit") ?? 0) + 1);
      const allowed = login.results.filter((result) => result.status !== 429).length;
      if (allowed !== Math.min(5, CONCURRENCY)) violations.push(`login limit: ${allowed} attempts let through`);
      notarized += accepted(issued).length;
    }
    const expected = notarized * TARGETS.length;
    await waitFor(
      async () =>
        (await context.platform.count("scheduler", "webhook_deliveries", "tenant = $1 AND state = 'delivered'", [
          context.tenant.tenant,
        ])) === expected && receiver.received.length >= expected,
      `${expected} webhook deliveries`,
      120_000,
    ).catch((error: unknown) => violations.push(String(error)));
    violations.push(...deliveryProblems(receiver.received, TARGETS, notarized));
    console.log(
      [
        `replicas: ${DURATION_SECONDS} s, ${CONCURRENCY} racers per race`,
        ...[...tally].map(([name, rounds]) => `  ${name}: ${rounds} races`),
        `  webhooks: ${notarized} events, ${receiver.received.length} deliveries to ${TARGETS.length} targets`,
        `  balancer: ${Object.entries(context.platform.balancers)
          .map(([service, balancer]) => `${service} ${balancer.served.join("/")}`)
          .join(", ")}`,
        `  violations: ${violations.length}`,
      ].join("\n"),
    );
    expect(violations).toEqual([]);
  });
});
