/**
 * The reconcile library without the Kubernetes client: resource schemas, reconcilers, the controller
 * loop and its conditions, behind the KubeClient interface. The operator runs it against the
 * Kubernetes API; the `attesto` CLI and the all-in-one's ATTESTO_CONFIG_DIR run the same code against
 * a file in the data folder (cli/src/local-cluster).
 */
export * from "./controller/conditions.js";
export * from "./controller/controller.js";
export * from "./controller/event-recorder.js";
export * from "./kube/kube-client.js";
export * from "./platform-clients.js";
export * from "./reconcile/create-reconcilers.js";
export * from "./reconcile/reconcile-error.js";
export * from "./reconcile/reconcile-issuer.js";
export * from "./reconcile/reconcile-tenant.js";
export * from "./reconcile/reconcile-verifier-policy.js";
export * from "./reconcile/reconciler.js";
export * from "./resources.js";
