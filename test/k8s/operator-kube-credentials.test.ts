import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { KubeCredentialsMissingError, loadKubeConfig } from "../../operator/src/kube/load-kube-config.js";

/**
 * Where the operator finds its Kubernetes credentials (KUBECONFIG, the pod's service account,
 * ~/.kube/config), and one clear failure when there are none, instead of client-node's fallback to
 * an unauthenticated localhost that the operator would retry forever.
 */
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "https://k8s.example:6443"}}]
users: [{name: test, user: {token: "t0ken-never-printed"}}]
contexts: [{name: test, context: {cluster: test, user: test}}]
current-context: test
`;

describe("the operator's Kubernetes credentials", () => {
  let dir: string;
  let home: string;
  let serviceAccountDir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "attesto-kube-"));
    home = join(dir, "home");
    serviceAccountDir = join(dir, "serviceaccount");
    mkdirSync(home);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const load = (env: { KUBECONFIG?: string; KUBERNETES_SERVICE_HOST?: string }) =>
    loadKubeConfig(env, { serviceAccountDir, homeDir: home });
  const failure = (env: { KUBECONFIG?: string; KUBERNETES_SERVICE_HOST?: string }) => {
    try {
      load(env);
    } catch (error) {
      expect(error).toBeInstanceOf(KubeCredentialsMissingError);
      return (error as Error).message;
    }
    throw new Error("loaded although there are no credentials");
  };

  it("fails at once, saying what is missing, outside a cluster without a kubeconfig", () => {
    expect(failure({})).toBe(
      `no Kubernetes credentials: not in a cluster (KUBERNETES_SERVICE_HOST unset), KUBECONFIG unset and no ${join(home, ".kube", "config")}. Run the operator in the cluster (the Helm chart) or set KUBECONFIG`,
    );
  });

  it("fails naming the missing token in a pod without a mounted service account", () => {
    expect(failure({ KUBERNETES_SERVICE_HOST: "10.0.0.1" })).toContain(
      `in a cluster but without a service account token (${serviceAccountDir}/token;`,
    );
  });

  it("fails for a KUBECONFIG that does not exist or has no current cluster", () => {
    expect(failure({ KUBECONFIG: join(dir, "absent") })).toBe(
      `KUBECONFIG names ${join(dir, "absent")}, which does not exist`,
    );
    const noContext = join(dir, "no-context");
    writeFileSync(noContext, KUBECONFIG.replace("current-context: test", "current-context: other"));
    const message = failure({ KUBECONFIG: noContext });
    expect(message).toContain('no current context with a cluster (context "other")');
    expect(message).not.toContain("t0ken");
  });

  it("uses KUBECONFIG, else the service account in a cluster, else ~/.kube/config", () => {
    const file = join(dir, "kubeconfig");
    writeFileSync(file, KUBECONFIG);
    expect(load({ KUBECONFIG: file }).getCurrentCluster()?.server).toBe("https://k8s.example:6443");

    mkdirSync(serviceAccountDir);
    writeFileSync(join(serviceAccountDir, "token"), "sa-token");
    writeFileSync(join(serviceAccountDir, "ca.crt"), "");
    writeFileSync(join(serviceAccountDir, "namespace"), "attesto");
    // client-node reads the API server's address from the process environment, as in a pod.
    vi.stubEnv("KUBERNETES_SERVICE_HOST", "10.0.0.1");
    vi.stubEnv("KUBERNETES_SERVICE_PORT", "443");
    try {
      const inCluster = load({ KUBERNETES_SERVICE_HOST: "10.0.0.1" });
      expect(inCluster.getCurrentCluster()?.server).toBe("https://10.0.0.1:443");
    } finally {
      vi.unstubAllEnvs();
    }

    mkdirSync(join(home, ".kube"));
    writeFileSync(join(home, ".kube", "config"), KUBECONFIG);
    expect(load({}).getCurrentCluster()?.name).toBe("test");
  });
});
