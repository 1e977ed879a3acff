import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "../../test/k8s/support/wait-for.js";
import { OperatorReplicas } from "../../test/replicas/support/operator-replicas.js";
import { DURATION_SECONDS, summary } from "./settings.js";

/**
 * test/replicas/operator-leader.test.ts for longer: leader hand-overs in the middle of reconciles,
 * round after round for REPLICAS_DURATION_SECONDS; no two operator replicas may ever have a
 * platform call in flight at once. Each round's Tenants must be Ready (reconciled by the new
 * leader) before the next round starts, so the work never piles up beyond what one leader does.
 */
const ROUND_READY_TIMEOUT_MS = 60_000;

describe("operator replicas under hand-overs", () => {
  let set: OperatorReplicas | undefined;
  afterAll(async () => {
    await set?.close();
  });

  it(`never reconcile at once for ${DURATION_SECONDS} s`, async () => {
    set = await OperatorReplicas.start({ replicas: 2 });
    const replicas = set;
    const violations: string[] = [];
    let tenants = 0;
    let rounds = 0;
    const deadline = Date.now() + DURATION_SECONDS * 1000;
    while (Date.now() < deadline) {
      const round = rounds++;
      const names = [0, 1, 2].map((i) => `tenant-${round}-${i}`);
      for (const name of names) replicas.applyTenant(name);
      tenants += names.length;
      try {
        await replicas.handOver(`round ${round}`);
        await waitFor(
          () => names.every((name) => replicas.ready(name)),
          `round ${round}: its tenants Ready`,
          ROUND_READY_TIMEOUT_MS,
        );
      } catch (error) {
        violations.push(String(error));
        break;
      }
    }
    if (rounds === 0) violations.push("no round ran");
    violations.push(...replicas.overlaps.map((overlap) => `overlap: ${overlap}`));
    const working = [...replicas.callsBy.values()].filter((count) => count > 0).length;
    if (working < 2) violations.push(`only ${working} replica made platform calls`);
    console.log(
      summary(
        `operator: ${DURATION_SECONDS} s of leader hand-overs`,
        [
          `${rounds} rounds (hand-overs), ${tenants} tenants applied`,
          `${working} replicas made platform calls (${[...replicas.callsBy.values()].reduce((a, b) => a + b, 0)} calls)`,
          `${replicas.overlaps.length} overlapping platform calls`,
        ],
        violations,
      ),
    );
    expect(violations).toEqual([]);
  });
});
