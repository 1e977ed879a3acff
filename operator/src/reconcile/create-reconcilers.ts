import { IssuerReconciler } from "./reconcile-issuer.js";
import { TenantReconciler } from "./reconcile-tenant.js";
import { VerifierPolicyReconciler } from "./reconcile-verifier-policy.js";
import type { ReconcileDeps, Reconciler } from "./reconciler.js";

/** One reconciler per resource kind: what the operator and the local control plane (CLI, all-in-one) run. */
export const createReconcilers = (deps: ReconcileDeps): Reconciler[] => [
  new TenantReconciler(deps),
  new IssuerReconciler(deps),
  new VerifierPolicyReconciler(deps),
];
