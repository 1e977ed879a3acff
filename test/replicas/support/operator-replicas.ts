import { type Platform, type RunningOperator, startOperator, type TenantStatus } from "@attesto/operator";
import { readExample } from "../../k8s/support/examples.js";
import { FakeKubeApiServer } from "../../k8s/support/fake-kube-apiserver.js";
import { OperatorPlatform } from "../../k8s/support/real-platform.js";
import { waitFor } from "../../k8s/support/wait-for.js";

const GROUP = "attesto.dev";
const VERSION = "v1alpha1";
const NS = "attesto-tenants";
/** The real platform the replicas reconcile against (test/k8s/support/real-platform.ts). */
const OPERATOR_REPLICAS_PORT_OFFSET = 19_820;

/**
 * Operator replicas with leader election against the Kubernetes API (a local server speaking its
 * protocol), each reaching the real platform (trust registry, credential issuer, verifier; started
 * by `start`, closed by `close`) through its own recording view. Every platform call a replica makes is a reconcile at work; a call of one replica that
 * starts while another replica's call is in flight is an overlap. Calls are slowed down by
 * `callDelayMs` so that passes are long and hand-overs happen mid-pass.
 */
export class OperatorReplicas {
  readonly live: RunningOperator[] = [];
  /** Every overlap seen: "<replica> <call> while <other replicas>". */
  readonly overlaps: string[] = [];
  /** Platform calls per replica identity. */
  readonly callsBy = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private readonly identities = new Map<RunningOperator, string>();
  private next = 0;

  private constructor(
    readonly server: FakeKubeApiServer,
    private readonly platform: OperatorPlatform,
    private readonly callDelayMs: number,
  ) {}

  static async start(options: { replicas: number; callDelayMs?: number }): Promise<OperatorReplicas> {
    const platform = await OperatorPlatform.start({ portOffset: OPERATOR_REPLICAS_PORT_OFFSET, label: "replicas" });
    const set = new OperatorReplicas(await new FakeKubeApiServer().start(), platform, options.callDelayMs ?? 40);
    for (let i = 0; i < options.replicas; i++) await set.add();
    return set;
  }

  /** Starts one more replica. */
  async add(): Promise<RunningOperator> {
    const identity = `operator-${this.next++}`;
    const operator = await startOperator({
      kubeConfig: this.server.kubeConfig(),
      platform: this.recorded(this.platform.platform(), identity),
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
    this.live.push(operator);
    this.identities.set(operator, identity);
    return operator;
  }

  leaders(): RunningOperator[] {
    return this.live.filter((replica) => replica.isLeader());
  }

  /** The one leader, once there is exactly one. */
  async leader(what: string): Promise<RunningOperator> {
    await waitFor(() => this.leaders().length === 1, `${what}: one leader`);
    return this.leaders()[0]!;
  }

  /** Waits until the leader makes a platform call, then stops it (mid-reconcile) and starts a new replica. */
  async handOver(what: string): Promise<void> {
    const leader = await this.leader(what);
    const identity = this.identities.get(leader) ?? "";
    const before = this.callsBy.get(identity) ?? 0;
    await waitFor(() => (this.callsBy.get(identity) ?? 0) > before, `${what}: leader at work`);
    await leader.close();
    this.live.splice(this.live.indexOf(leader), 1);
    await this.add();
  }

  applyTenant(name: string): void {
    this.server.apply(GROUP, VERSION, "tenants", {
      ...readExample("tenant.yaml")[0]!,
      metadata: { name, namespace: NS },
      spec: { organizationName: `Org ${name}`, tenantId: name },
    });
  }

  ready(name: string): boolean {
    const status = this.server.get(GROUP, "tenants", NS, name)?.status as TenantStatus | undefined;
    return status?.conditions?.find((condition) => condition.type === "Ready")?.status === "True";
  }

  async close(): Promise<void> {
    await Promise.all(this.live.splice(0).map((operator) => operator.close()));
    await this.server.close();
    await this.platform.close();
  }

  /** `platform`, as replica `identity` sees it: each call is slowed down and recorded while in flight. */
  private recorded(platform: Platform, identity: string): Platform {
    const wrap = <C extends object>(client: C, service: string): C =>
      new Proxy(client, {
        get: (target, property, receiver) => {
          const value = Reflect.get(target, property, receiver);
          if (typeof value !== "function") return value;
          return async (request: unknown, options?: { signal?: AbortSignal }) => {
            const others = [...this.inFlight].filter(([who, count]) => who !== identity && count > 0);
            if (others.length > 0) {
              this.overlaps.push(
                `${identity} ${service}.${String(property)} while ${others.map(([who]) => who).join(", ")}`,
              );
            }
            this.inFlight.set(identity, (this.inFlight.get(identity) ?? 0) + 1);
            this.callsBy.set(identity, (this.callsBy.get(identity) ?? 0) + 1);
            try {
              await new Promise<void>((resolve, reject) => {
                const signal = options?.signal;
                const onAbort = () => {
                  clearTimeout(timer);
                  reject(signal?.reason);
                };
                const timer = setTimeout(() => {
                  signal?.removeEventListener("abort", onAbort);
                  resolve();
                }, this.callDelayMs);
                signal?.addEventListener("abort", onAbort, { once: true });
              });
              return await value.call(target, request, options);
            } finally {
              this.inFlight.set(identity, (this.inFlight.get(identity) ?? 1) - 1);
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
}
