import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "../../test/k8s/support/wait-for.js";
import { OperatorReplicas } from "../../test/replicas/support/operator-replicas.js";

/**
 * test/replicas/operator-leader.test.ts for longer: leader hand-overs in the middle of reconciles,
 * round after round for REPLICAS_DURATION_SECONDS; no two operator replicas may ever have a
 * platform call in flight at once.
 */
const DURATION_SECONDS = Number(process.env.REPLICAS_DURATION_SECONDS ?? 120);

describe("operator replicas under hand-overs", () => {
  let set: OperatorReplicas | undefined;
  afterAll(async () => {
    await set?.close();
  });

  it(`never reconcile at once for ${DURATION_SECONDS} s`, async () => {
    set = await OperatorReplicas.start({ replicas: 2 });
    const replicas = set;
    const tenants: string[] = [];
    const deadline = Date.now() + DURATION_SECONDS * 1000;
    for (let round = 0; Date.now() < deadline; round++) {
      for (let i = 0; i < 3; i++) {
        const name = `tenant-${round}-${i}`;
        tenants.push(name);
        replicas.applyTenant(name);
      }
      await replicas.handOver(`round ${round}`);
    }
    await waitFor(() => tenants.every((name) => replicas.ready(name)), "every tenant Ready", 120_000);
    console.log(
      `operator: ${tenants.length} tenants, ${replicas.callsBy.size} replicas, ${replicas.overlaps.length} overlaps`,
    );
    expect(replicas.overlaps).toEqual([]);
  });
});
