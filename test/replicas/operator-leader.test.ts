import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../k8s/support/wait-for.js";
import { OperatorReplicas } from "./support/operator-replicas.js";

/**
 * The operator's replicas never reconcile at the same time: two operator instances with leader
 * election (more across hand-overs) against the real platform, every platform call of each recorded
 * while in flight; the leader is stopped in the middle of its reconciles and a new replica joins,
 * round after round. (hack/replicas runs the same for longer.)
 */
let set: OperatorReplicas;

beforeAll(async () => {
  set = await OperatorReplicas.start({ replicas: 2 });
});

afterAll(async () => {
  await set?.close();
});

describe("operator replicas", () => {
  it("never reconcile at the same time, across hand-overs in the middle of reconciles", async () => {
    const tenants: string[] = [];
    for (let round = 0; round < 4; round++) {
      await set.leader(`round ${round}`);
      // Work for the leader: new tenants (each pass makes several slowed-down platform calls).
      for (let i = 0; i < 3; i++) {
        const name = `tenant-${round}-${i}`;
        tenants.push(name);
        set.applyTenant(name);
      }
      await set.handOver(`round ${round}`);
    }
    await waitFor(() => tenants.every((name) => set.ready(name)), "every tenant Ready", 30_000);
    expect(set.overlaps).toEqual([]);
    // The work was shared out: more than one replica made platform calls, one after the other.
    expect([...set.callsBy.values()].filter((count) => count > 0).length).toBeGreaterThan(1);
    expect(set.leaders()).toHaveLength(1);
  });
});
