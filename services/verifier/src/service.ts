import { perService, readPackageVersion, type ServiceContext, type ServiceModule } from "@attesto/runtime/service";
import { buildApp } from "./app.js";
import { loadVerifierConfig, type VerifierConfig, verifierPorts } from "./config.js";
import { createDependencies } from "./dependencies.js";
import { dropExpiredSessionKeys, KEY_SWEEP_INTERVAL_MS } from "./domain/drop-expired-session-keys.js";
import {
  failInterruptedVerifications,
  INTERRUPTED_SWEEP_INTERVAL_MS,
} from "./domain/fail-interrupted-verifications.js";
import { registerVerifierRpc } from "./rpc/register-verifier-rpc.js";
import { migrations } from "./store/migrations/index.js";
import { sealedColumns } from "./store/sealed-columns.js";

/** One set of edges per running service, shared by the public app, the internal RPC and start-up work. */
export const dependenciesOf = perService(createDependencies);

/**
 * Start-up: background sweeps that drop the sealed keys of sessions that expired unanswered and
 * close verifications an earlier version's dead process left in_progress (once at start, then periodically).
 */
async function startSweeps(context: ServiceContext<VerifierConfig>): Promise<() => Promise<void>> {
  const deps = {
    sessions: dependenciesOf(context).sessions,
    now: context.clock,
    timeoutSeconds: context.config.VERIFICATION_TIMEOUT_SECONDS,
  };
  const running = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    const settled = work.catch(() => undefined).finally(() => running.delete(settled));
    running.add(settled);
  };
  track(failInterruptedVerifications(deps));
  const timers = [
    setInterval(() => track(dropExpiredSessionKeys(deps)), KEY_SWEEP_INTERVAL_MS),
    setInterval(() => track(failInterruptedVerifications(deps)), INTERRUPTED_SWEEP_INTERVAL_MS),
  ];
  for (const timer of timers) timer.unref();
  return async () => {
    for (const timer of timers) clearInterval(timer);
    await Promise.all(running);
  };
}

export const verifier: ServiceModule<VerifierConfig> = {
  definition: {
    name: "verifier",
    version: readPackageVersion(import.meta.url),
    migrations,
    sealedColumns,
    // GET /ready needs these peers (trust-registry: API keys, trusted issuers; ledger: DIDs and status).
    readinessPeers: (config) => ({
      "trust-registry": config.TRUST_REGISTRY_INTERNAL_URL,
      ledger: config.LEDGER_INTERNAL_URL,
    }),
    buildApp: (context) => buildApp(context, dependenciesOf(context)),
    rpc: (router, context) => registerVerifierRpc(router, dependenciesOf(context)),
    init: startSweeps,
  },
  loadConfig: loadVerifierConfig,
  ports: verifierPorts,
};
