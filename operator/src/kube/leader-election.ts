import { type KubeClient, KubeConflictError, type Lease, microTime } from "./kube-client.js";

export interface LeaderElectionOptions {
  kube: KubeClient;
  namespace: string;
  name: string;
  /** This replica's identity (the pod name). */
  identity: string;
  /** How long a lease holds without renewal before another replica may take it. */
  leaseDurationSeconds?: number;
  /** How often the holder renews and the others try. */
  retryPeriodMs?: number;
  now?: () => Date;
  onStartedLeading(): void;
  onStoppedLeading(): void;
  onError?(error: unknown): void;
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it: the
 * holder renews `renewTime` every retry period; another replica takes the Lease only once it has
 * seen the same Lease record, unchanged, for `leaseDurationSeconds` of its own clock (client-go's
 * observedTime). The holder's `renewTime` is never compared with the local clock, so clock skew
 * between nodes cannot make a replica take a Lease that is still being renewed. Every write carries
 * the resourceVersion it read, so two replicas racing for an expired Lease cannot both win (the
 * loser gets a conflict).
 */
export class LeaderElector {
  private leading = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Whether this replica's last attempt left it holding the Lease. */
  private held = false;
  /** The acquire-or-renew attempt in flight, if any. */
  private attempt: Promise<void> | undefined;
  private readonly leaseDurationSeconds: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => Date;
  /** When this replica last renewed successfully (it steps down when it cannot renew in time). */
  private lastRenewal = 0;
  /** The Lease record last seen (holder, renewTime, resourceVersion) and when, by the local clock. */
  private observed: { record: string; at: number } | undefined;

  constructor(private readonly options: LeaderElectionOptions) {
    this.leaseDurationSeconds = options.leaseDurationSeconds ?? 15;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.now = options.now ?? (() => new Date());
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    this.tick();
  }

  /**
   * Stops campaigning; a leader first ends its term (onStoppedLeading cancels its work) and only then
   * releases the Lease, so that another replica cannot start leading while this one still acts. An
   * attempt in flight is waited for (it no longer starts a term) so that it cannot renew after the release.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.setLeading(false);
    await this.attempt;
    if (this.held) {
      this.held = false;
      await this.release().catch((error: unknown) => this.options.onError?.(error));
    }
  }

  /** One attempt to acquire or renew; exposed for tests. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { kube, namespace, name, identity } = this.options;
    const now = this.now();
    const existing = await kube.getLease(namespace, name);
    if (!existing) {
      await kube.createLease({
        metadata: { name, namespace },
        spec: {
          holderIdentity: identity,
          leaseDurationSeconds: this.leaseDurationSeconds,
          acquireTime: microTime(now),
          renewTime: microTime(now),
          leaseTransitions: 0,
        },
      });
      return true;
    }
    const spec = existing.spec ?? {};
    const holder = spec.holderIdentity ?? "";
    if (holder === identity) {
      await kube.replaceLease(this.withSpec(existing, { ...spec, renewTime: microTime(now) }));
      return true;
    }
    const record = JSON.stringify([holder, spec.renewTime ?? "", existing.metadata.resourceVersion ?? ""]);
    if (this.observed?.record !== record) this.observed = { record, at: now.getTime() };
    const duration = (spec.leaseDurationSeconds ?? this.leaseDurationSeconds) * 1000;
    // A released Lease (no holder) is free at once; a held one once unchanged for its duration here.
    if (holder !== "" && this.observed.at + duration > now.getTime()) return false;
    await kube.replaceLease(
      this.withSpec(existing, {
        holderIdentity: identity,
        leaseDurationSeconds: this.leaseDurationSeconds,
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: (spec.leaseTransitions ?? 0) + 1,
      }),
    );
    return true;
  }

  private withSpec(lease: Lease, spec: Lease["spec"]): Lease {
    return { metadata: { ...lease.metadata }, spec };
  }

  private tick() {
    if (this.stopped) return;
    this.attempt = this.campaign().finally(() => {
      this.attempt = undefined;
    });
  }

  private async campaign() {
    try {
      const leading = await this.tryAcquireOrRenew();
      this.held = leading;
      if (this.stopped) return;
      if (leading) this.lastRenewal = this.now().getTime();
      this.setLeading(leading);
    } catch (error) {
      if (!(error instanceof KubeConflictError)) this.options.onError?.(error);
      // Could not renew: step down before the Lease can expire under us and another replica leads.
      const deadline = this.lastRenewal + this.leaseDurationSeconds * 1000 - this.retryPeriodMs;
      if (this.leading && this.now().getTime() >= deadline) this.setLeading(false);
    }
    if (!this.stopped) {
      this.timer = setTimeout(() => this.tick(), this.retryPeriodMs);
      this.timer.unref();
    }
  }

  private setLeading(leading: boolean) {
    if (leading === this.leading) return;
    this.leading = leading;
    if (leading) this.options.onStartedLeading();
    else this.options.onStoppedLeading();
  }

  private async release() {
    const { kube, namespace, name, identity } = this.options;
    const existing = await kube.getLease(namespace, name);
    if (!existing || existing.spec?.holderIdentity !== identity) return;
    await kube.replaceLease(
      this.withSpec(existing, {
        ...existing.spec,
        holderIdentity: "",
        // An expired renewTime lets the next replica take the Lease on its next try.
        renewTime: microTime(new Date(0)),
      }),
    );
  }
}
