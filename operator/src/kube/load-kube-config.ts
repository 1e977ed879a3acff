import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";

/** Neither in-cluster credentials nor a kubeconfig: the operator cannot reach the Kubernetes API. */
export class KubeCredentialsMissingError extends Error {
  override name = "KubeCredentialsMissingError";
}

export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * Where the operator's Kubernetes credentials come from, in client-go's order: `KUBECONFIG`, else
 * the pod's service account (in a cluster), else `~/.kube/config`. With none of them it fails at
 * once with one message saying what is missing, instead of client-node's fallback to an
 * unauthenticated http://localhost:8080 that retries forever.
 */
export function loadKubeConfig(
  env: { KUBECONFIG?: string | undefined; KUBERNETES_SERVICE_HOST?: string | undefined },
  places: { serviceAccountDir?: string; homeDir?: string } = {},
): KubeConfig {
  const kubeConfig = new KubeConfig();
  const serviceAccountDir = places.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const homeKubeconfig = join(places.homeDir ?? homedir(), ".kube", "config");
  if (env.KUBECONFIG) {
    if (!existsSync(env.KUBECONFIG)) {
      throw new KubeCredentialsMissingError(`KUBECONFIG names ${env.KUBECONFIG}, which does not exist`);
    }
    kubeConfig.loadFromFile(env.KUBECONFIG);
  } else if (env.KUBERNETES_SERVICE_HOST && existsSync(join(serviceAccountDir, "token"))) {
    kubeConfig.loadFromCluster(serviceAccountDir);
  } else if (existsSync(homeKubeconfig)) {
    kubeConfig.loadFromFile(homeKubeconfig);
  } else {
    const inCluster = env.KUBERNETES_SERVICE_HOST
      ? `in a cluster but without a service account token (${serviceAccountDir}/token; automountServiceAccountToken must be true for the operator)`
      : "not in a cluster (KUBERNETES_SERVICE_HOST unset)";
    throw new KubeCredentialsMissingError(
      `no Kubernetes credentials: ${inCluster}, KUBECONFIG unset and no ${homeKubeconfig}. Run the operator in the cluster (the Helm chart) or set KUBECONFIG`,
    );
  }
  if (!kubeConfig.getCurrentCluster()) {
    throw new KubeCredentialsMissingError(
      `the kubeconfig has no current context with a cluster (context "${kubeConfig.getCurrentContext() || "(none)"}")`,
    );
  }
  return kubeConfig;
}
