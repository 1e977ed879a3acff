import { booleanFlag, loadConfig } from "@attesto/runtime/config";
import { parseServiceIdentityKey } from "@attesto/runtime/rpc";
import { z } from "zod";

/** The operator's environment variables (documented in operator/README.md). */
export const operatorConfigSchema = z.object({
  HOST: z.string().min(1).default("0.0.0.0"),
  /** /healthz, /readyz and /metrics. */
  PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Internal (Connect) URL of the trust registry: TenantService and KeyCustodyService. */
  TRUST_REGISTRY_INTERNAL_URL: z.url().default("http://localhost:9085"),
  /** Internal (Connect) URL of the credential issuer: IssuerService. */
  CREDENTIAL_ISSUER_INTERNAL_URL: z.url().default("http://localhost:9082"),
  /** Internal (Connect) URL of the verifier: VerifierPolicyService. */
  VERIFIER_INTERNAL_URL: z.url().default("http://localhost:9083"),
  /** The operator's own identity: its Ed25519 private JWK; the platform knows its public key as "operator". */
  SERVICE_IDENTITY_KEY: z.string({ error: "SERVICE_IDENTITY_KEY is required" }).superRefine((value, ctx) => {
    try {
      parseServiceIdentityKey(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
    }
  }),
  RPC_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** Watch one namespace; every namespace when unset. */
  WATCH_NAMESPACE: z.string().optional(),
  /** Namespace of the leader-election Lease (the operator's own). */
  POD_NAMESPACE: z.string().min(1).default("default"),
  /** This replica's identity in the Lease; the pod name in Kubernetes. */
  POD_NAME: z.string().min(1).default(`operator-${process.pid}`),
  LEADER_ELECTION: booleanFlag.default(true),
  LEASE_NAME: z.string().min(1).default("attesto-operator"),
  LEASE_DURATION_SECONDS: z.coerce.number().int().min(5).max(300).default(15),
  LEASE_RETRY_PERIOD_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  RECONCILE_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
  RECONCILE_BASE_DELAY_MS: z.coerce.number().int().min(10).default(1_000),
  RECONCILE_MAX_DELAY_MS: z.coerce.number().int().min(100).default(300_000),
  /** Path to a kubeconfig; in-cluster service account credentials when unset. */
  KUBECONFIG: z.string().optional(),
});

export type OperatorConfig = z.infer<typeof operatorConfigSchema>;

export const loadOperatorConfig = (env: Record<string, string | undefined>): OperatorConfig =>
  loadConfig(operatorConfigSchema, env);
