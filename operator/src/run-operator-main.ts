import { ConfigError } from "@attesto/runtime/config";
import { loggerOptions } from "@attesto/runtime/logging";
import type { KubeConfig } from "@kubernetes/client-node";
import pino from "pino";
import { loadOperatorConfig, type OperatorConfig } from "./config.js";
import { type RunningOperator, startOperator } from "./create-operator.js";
import { KubeCredentialsMissingError, loadKubeConfig } from "./kube/load-kube-config.js";
import { createPlatform } from "./platform-clients.js";

/** The operator process: configuration from the environment, kubeconfig, start, drain on SIGTERM. */
export async function runOperatorMain(env: Record<string, string | undefined>): Promise<RunningOperator> {
  let config: OperatorConfig;
  try {
    config = loadOperatorConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`operator: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }

  const log = pino(loggerOptions("operator", config.LOG_LEVEL));
  let kubeConfig: KubeConfig;
  try {
    kubeConfig = loadKubeConfig({
      KUBECONFIG: config.KUBECONFIG,
      KUBERNETES_SERVICE_HOST: env.KUBERNETES_SERVICE_HOST,
    });
  } catch (error) {
    if (error instanceof KubeCredentialsMissingError) {
      console.error(`operator: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }

  const operator = await startOperator({
    kubeConfig,
    platform: createPlatform({
      trustRegistryUrl: config.TRUST_REGISTRY_INTERNAL_URL,
      credentialIssuerUrl: config.CREDENTIAL_ISSUER_INTERNAL_URL,
      verifierUrl: config.VERIFIER_INTERNAL_URL,
      identityKey: config.SERVICE_IDENTITY_KEY,
      timeoutMs: config.RPC_TIMEOUT_MS,
    }),
    namespace: config.WATCH_NAMESPACE,
    identity: config.POD_NAME,
    leaderElection: config.LEADER_ELECTION
      ? {
          namespace: config.POD_NAMESPACE,
          name: config.LEASE_NAME,
          leaseDurationSeconds: config.LEASE_DURATION_SECONDS,
          retryPeriodMs: config.LEASE_RETRY_PERIOD_MS,
        }
      : false,
    http: { host: config.HOST, port: config.PORT },
    log,
    maxAttempts: config.RECONCILE_MAX_ATTEMPTS,
    baseDelayMs: config.RECONCILE_BASE_DELAY_MS,
    maxDelayMs: config.RECONCILE_MAX_DELAY_MS,
  });
  log.info({ url: operator.http?.url, namespace: config.WATCH_NAMESPACE ?? "(all)" }, "operator started");

  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    log.info({ signal }, "shutting down");
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    operator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  return operator;
}
