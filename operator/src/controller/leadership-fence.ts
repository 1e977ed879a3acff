import { AsyncLocalStorage } from "node:async_hooks";
import type { Client } from "@connectrpc/connect";
import type { KubeClient } from "../kube/kube-client.js";
import type { Platform } from "../reconcile/reconciler.js";

/** A write attempted by a reconcile whose leadership term has ended. */
export class LeadershipLostError extends Error {
  override name = "LeadershipLostError";
}

/**
 * Stops a reconcile the moment its replica stops leading. The controller runs each reconcile pass
 * under the signal of the leadership term it started in (`run`); the Kubernetes client and the
 * platform clients wrapped by `fenceKube` / `fencePlatform` refuse every call once that signal is
 * aborted, and hand it to platform calls in flight, which are cancelled. So a reconcile interrupted
 * by the loss of the Lease writes nothing more: no status, no Secret, no Event, no platform change —
 * the new leader does that work. Calls made outside a pass (leader election itself) are not fenced.
 */
export class LeadershipFence {
  private readonly storage = new AsyncLocalStorage<AbortSignal>();

  run<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    return this.storage.run(signal, work);
  }

  /** The signal of the term the current reconcile pass runs in, if any. */
  get signal(): AbortSignal | undefined {
    return this.storage.getStore();
  }

  /** Throws LeadershipLostError when the current pass's term has ended. */
  check(what: string): void {
    if (this.signal?.aborted) throw new LeadershipLostError(`${what}: not leading any more`);
  }
}

/** The KubeClient the reconcilers and the controller write through: nothing once leadership is lost. */
export function fenceKube(kube: KubeClient, fence: LeadershipFence): KubeClient {
  return new Proxy(kube, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        fence.check(`Kubernetes ${String(property)}`);
        return value.apply(target, args);
      };
    },
  });
}

function fenceClient<C extends Client<never>>(client: C, fence: LeadershipFence, service: string): C {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (request: unknown, options?: { signal?: AbortSignal }) => {
        fence.check(`${service}.${String(property)}`);
        const term = fence.signal;
        const signal = term && options?.signal ? AbortSignal.any([term, options.signal]) : (term ?? options?.signal);
        return value.call(target, request, { ...options, signal });
      };
    },
  });
}

/** The platform clients the reconcilers call: refused, and cancelled in flight, once leadership is lost. */
export function fencePlatform(platform: Platform, fence: LeadershipFence): Platform {
  return {
    tenants: fenceClient(platform.tenants, fence, "TenantService"),
    keys: fenceClient(platform.keys, fence, "KeyCustodyService"),
    issuers: fenceClient(platform.issuers, fence, "IssuerService"),
    verifierPolicies: fenceClient(platform.verifierPolicies, fence, "VerifierPolicyService"),
  };
}
