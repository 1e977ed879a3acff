import { type Platform, type RunningOperator, startOperator, type TenantStatus } from "@attesto/operator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readExample } from "../k8s/support/examples.js";
import { FakeKubeApiServer } from "../k8s/support/fake-kube-apiserver.js";
import { InMemoryTrustRegistry } from "../k8s/support/platform-double.js";
import { waitFor } from "../k8s/support/wait-for.js";

/**
 * The operator's replicas never reconcile at the same time: two (and, across hand-overs, more)
 * operator instances with leader election against the Kubernetes API (a local server speaking its
 * protocol), each reaching the platform through its own recording view of one shared trust
 * registry. Every platform call a replica makes is a reconcile at work; a call of one replica that
 * starts while another replica's call is in flight is a violation. Calls are slowed down so that
 * passes are long and hand-overs happen mid-pass.
 */
const GROUP = "attesto.dev";
const VERSION = "v1alpha1";
const NS = "attesto-tenants";
const CALL_DELAY_MS = 40;

let server: FakeKubeApiServer;
let registry: InMemoryTrustRegistry;
const operators: RunningOperator[] = [];
const identities = new Map<RunningOperator, string>();
/** Platform calls in flight per replica identity, and every overlap seen. */
const inFlight = new Map<string, number>();
const overlaps: string[] = [];
const callsBy = new Map<string, number>();

/** `platform`, as replica `identity` sees it: each call is slowed down and recorded while in flight. */
function recorded(platform: Platform, identity: string): Platform {
  const wrap = <C extends object>(client: C, service: string): C =>
    new Proxy(client, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== "function") return value;
        return async (request: unknown, options?: { signal?: AbortSignal }) => {
          const others = [...inFlight].filter(([who, count]) => who !== identity && count > 0).map(([who]) => who);
          if (others.length > 0) overlaps.push(`${identity} ${service}.${String(property)} while ${others.join(", ")}`);
          inFlight.set(identity, (inFlight.get(identity) ?? 0) + 1);
          callsBy.set(identity, (callsBy.get(identity) ?? 0) + 1);
          try {
            await new Promise<void>((resolve, reject) => {
              const timer = setTimeout(resolve, CALL_DELAY_MS);
              options?.signal?.addEventListener("abort", () => {
                clearTimeout(timer);
                reject(options.signal?.reason);
              });
            });
            return await value.call(target, request, options);
          } finally {
            inFlight.set(identity, (inFlight.get(identity) ?? 1) - 1);
          }
        };
      },
    });
  return {
    tenants: wrap(platform.tenants, "TenantService"),
    keys: wrap(platform.keys, "KeyCustodyService"),
    issuers: wrap(platform.issuers, "IssuerService"),
    verifierPolicies: wrap(platform.verifierPolicies, "VerifierPolicyService"),
  };
}

async function startReplica(identity: string) {
  const operator = await startOperator({
    kubeConfig: server.kubeConfig(),
    platform: recorded(registry.platform(), identity),
    identity,
    leaderElection: {
      namespace: "attesto-system",
      name: "attesto-operator",
      leaseDurationSeconds: 2,
      retryPeriodMs: 25,
    },
    maxAttempts: 20,
    baseDelayMs: 20,
    maxDelayMs: 200,
  });
  operators.push(operator);
  identities.set(operator, identity);
  return operator;
}

function applyTenant(name: string) {
  server.apply(GROUP, VERSION, "tenants", {
    ...readExample("tenant.yaml")[0]!,
    metadata: { name, namespace: NS },
    spec: { organizationName: `Org ${name}`, tenantId: name },
  });
}

const ready = (name: string) =>
  (server.get(GROUP, "tenants", NS, name)?.status as TenantStatus | undefined)?.conditions?.find(
    (condition) => condition.type === "Ready",
  )?.status === "True";

const leaderOf = (replicas: RunningOperator[]) => replicas.filter((replica) => replica.isLeader());

beforeEach(async () => {
  server = await new FakeKubeApiServer().start();
  registry = new InMemoryTrustRegistry();
  inFlight.clear();
  overlaps.length = 0;
  callsBy.clear();
});

afterEach(async () => {
  await Promise.all(operators.splice(0).map((operator) => operator.close()));
  await server.close();
});

describe("operator replicas", () => {
  it("never reconcile at the same time, across hand-overs in the middle of reconciles", async () => {
    const live: RunningOperator[] = [await startReplica("operator-0"), await startReplica("operator-1")];
    let next = 2;
    const tenants: string[] = [];
    for (let round = 0; round < 4; round++) {
      await waitFor(() => leaderOf(live).length === 1, `round ${round}: one leader`);
      // Work for the leader: new tenants (each pass makes several slowed-down platform calls).
      for (let i = 0; i < 3; i++) {
        const name = `tenant-${round}-${i}`;
        tenants.push(name);
        applyTenant(name);
      }
      // Hand over while it is reconciling: the leader leaves, a new replica joins.
      const leader = leaderOf(live)[0]!;
      const busy = callsBy.get(identities.get(leader) ?? "") ?? 0;
      await waitFor(() => (callsBy.get(identities.get(leader) ?? "") ?? 0) > busy, `round ${round}: leader at work`);
      await leader.close();
      live.splice(live.indexOf(leader), 1);
      operators.splice(operators.indexOf(leader), 1);
      live.push(await startReplica(`operator-${next++}`));
    }
    await waitFor(() => tenants.every(ready), "every tenant Ready", 30_000);
    expect(overlaps).toEqual([]);
    // More than one replica did the work, one after the other.
    expect([...callsBy.values()].filter((count) => count > 0).length).toBeGreaterThan(1);
    expect(leaderOf(live)).toHaveLength(1);
  });
});
